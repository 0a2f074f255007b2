"""The turn runner on its own: what reaches the view when a turn cannot even start."""

from __future__ import annotations

from typing import Any

from loki_desktop.core.agent import Agent
from loki_desktop.ui.chat.items import ErrorCard, UserMessage
from loki_desktop.ui.chat.view import ChatView
from loki_desktop.ui.text.markdown_render import MarkdownRenderer
from loki_desktop.ui.theme import LIGHT
from loki_desktop.ui.turns import TurnRunner


def unbuildable() -> Agent:
    raise ValueError("réglage illisible")


async def test_an_agent_that_cannot_be_built_becomes_an_error_card(qtbot: Any) -> None:
    view = ChatView(MarkdownRenderer(LIGHT))
    qtbot.addWidget(view)
    running: set[str] = set()
    runner = TurnRunner(view, unbuildable, running)
    ended: list[str] = []
    runner.finished.connect(ended.append)
    view.add_user_message("Bonjour")
    runner.send("Bonjour", "conversation-1")  # a slot: it must not raise
    assert runner.busy
    assert running == {"conversation-1"}
    assert await runner.wait() == "error"
    assert ended == ["error"]
    assert not runner.busy
    assert running == set()
    user, card = view.items()
    assert isinstance(user, UserMessage)
    assert isinstance(card, ErrorCard)
    assert "ValueError: réglage illisible" in card.message


async def test_a_conversation_runs_one_turn_at_a_time_across_runners(qtbot: Any) -> None:
    view = ChatView(MarkdownRenderer(LIGHT))
    qtbot.addWidget(view)
    running: set[str] = set()
    first = TurnRunner(view, unbuildable, running)
    second = TurnRunner(view, unbuildable, running)
    first.send("Bonjour", "conversation-1")
    assert not second.can_start("conversation-1")
    assert second.can_start("conversation-2")
    await first.wait()
    assert second.can_start("conversation-1")


async def test_a_turn_stopped_before_it_began_still_ends(qtbot: Any) -> None:
    view = ChatView(MarkdownRenderer(LIGHT))
    qtbot.addWidget(view)
    running: set[str] = set()
    runner = TurnRunner(view, unbuildable, running)
    ended: list[str] = []
    runner.finished.connect(ended.append)
    runner.send("Bonjour", "conversation-1")
    runner.stop()  # in the same slot, before the task's first step
    assert await runner.wait() == "cancelled"
    assert ended == ["cancelled"]
    assert not runner.busy
    assert running == set()
