"""The window's answer figures: a quiet line under each answer, the composer's context bar."""

from __future__ import annotations

from typing import Any

from loki_desktop.core.answer_stats import AnswerStats
from loki_desktop.core.services import Services
from loki_desktop.ui.chat.answer_figures import AnswerFigures, ContextBar
from loki_desktop.ui.chat.items import AssistantMessage
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.helpers import open_window, wait_until


async def test_the_figures_follow_the_answer_and_fill_the_context_bar(
    ollama: FakeOllama, qtbot: Any, services: Services
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        ollama.script(
            Reply.text(
                "Bonjour !", prompt_eval_count=3012, eval_count=40, eval_duration=500_000_000
            )
        )
        bar = window.composer.context_bar
        assert bar.isHidden()  # nothing known before a first answer
        window.composer.set_text("Salut")
        window.composer.submit()
        await wait_until(lambda: window.sessions.current is not None)
        session = window.sessions.current
        assert session is not None
        await wait_until(lambda: not session.runner.busy)
        answer = session.view.items()[-1]
        assert isinstance(answer, AssistantMessage)
        figures = answer.figures  # under the answer, inside its frame
        assert figures is not None
        assert figures.isVisible()
        assert figures.geometry().top() > answer.body.geometry().bottom()
        parts = figures.text().split(" · ")
        assert parts[:2] == ["40 jetons", "80,0 jetons/s"]
        assert parts[3] == "contexte 3\u202f052 / 8\u202f192"
        assert figures.toolTip() == "Comptes donnés par le serveur du modèle."
        assert bar.isVisible()
        assert (bar.used, bar.limit) == (3052, 8192)
        assert bar.property("full") == "false"
        window.composer.set_text("mot " * 6000)  # a draft that brings it past 80 %
        assert bar.typed > 3000
        assert bar.property("full") == "true"
        assert "Contexte : " in bar.toolTip()
        window.composer.set_text("")

        # opened again from the history: the same figures under the answer
        shown, conversation = figures.text(), session.id
        window.sessions.new_conversation()
        window.sessions.open_conversation(conversation)
        await wait_until(lambda: window.sessions.current is not None)
        reopened = window.sessions.current
        assert reopened is not None
        await wait_until(
            lambda: any(isinstance(i, AssistantMessage) for i in reopened.view.items())
        )
        again = next(i for i in reopened.view.items() if isinstance(i, AssistantMessage))
        assert again.figures is not None
        assert again.figures.text() == shown


def test_an_estimate_says_so_and_an_empty_context_hides_the_bar(qtbot: Any) -> None:
    estimated = AnswerFigures(AnswerStats(10, 5, None, None, 15, 0, estimated=True))
    qtbot.addWidget(estimated)
    assert estimated.text() == "5 jetons (estimé)"
    assert estimated.toolTip() == "Estimé : le serveur n'a pas donné ses comptes."
    bar = ContextBar()
    qtbot.addWidget(bar)
    bar.set_context(7000, 8000)
    bar.show()
    assert bar.property("full") == "true"
    bar.set_context(0, 0)
    assert bar.isHidden()
