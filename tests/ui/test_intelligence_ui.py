"""Intelligence in the window: the plan, review and summary cards (live and reopened), the
code model's badge, and Réglages → Intelligence's switches, against the scripted server."""

from __future__ import annotations

from typing import Any

from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.compaction import SUMMARY_SYSTEM
from loki_desktop.core.events import SkillUsed
from loki_desktop.core.message_meta import MessageMeta
from loki_desktop.core.messages import ChatMessage
from loki_desktop.core.plan import PLAN_SYSTEM
from loki_desktop.core.review import REVIEW_SYSTEM
from loki_desktop.core.services import Services
from loki_desktop.ui.chat.cards import FoldCard
from loki_desktop.ui.chat.items import SkillBadge
from loki_desktop.ui.settings.installed_models import COLUMNS
from loki_desktop.ui.window.main_window import MainWindow
from tests.fakes.ollama_server import FakeOllama, ModelCard, Reply
from tests.ui.helpers import open_window, wait_until

MULTI = "Crée notes.md, ajoute une liste de courses, puis vérifie le fichier"


def items(window: MainWindow) -> list[Any]:
    assert window.sessions.current is not None
    return window.sessions.current.view.items()


async def send_and_wait(window: MainWindow, text: str) -> None:
    window.composer.set_text(text)
    window.composer.submit()
    await wait_until(
        lambda: window.sessions.current is not None and not window.sessions.current.runner.busy
    )


def answer_by_role(body: dict[str, Any]) -> Reply:
    first = body["messages"][0]["content"]
    if first == PLAN_SYSTEM:
        return Reply.text("1. Créer notes.md\n2. Écrire la liste\n3. Relire")
    if first == REVIEW_SYSTEM:
        return Reply.text("OK")
    return Reply.text("Voici la liste.")


async def test_a_turn_shows_its_plan_and_its_review_as_cards(
    ollama: FakeOllama, services: Services, qtbot: Any
) -> None:
    services.settings.update(lambda s: setattr(s, "plan_enabled", True))
    services.settings.update(lambda s: setattr(s, "review_enabled", True))
    ollama.default = answer_by_role
    async with open_window(services, qtbot, ollama.url) as window:
        await send_and_wait(window, MULTI)
        shown = items(window)
        (plan,) = [item for item in shown if item.objectName() == "PlanCard"]
        assert isinstance(plan, FoldCard)
        assert plan.is_open  # the running turn's plan is shown
        assert plan.body.text() == "1. Créer notes.md\n2. Écrire la liste\n3. Relire"
        plan.toggle.click()
        assert not plan.body.isVisibleTo(plan)
        (review,) = [item for item in shown if item.objectName() == "ReviewCard"]
        assert review.text() == "relu : rien à changer"
        names = [item.objectName() or type(item).__name__ for item in shown]
        assert names.index("PlanCard") < names.index("ReviewCard")


async def test_a_reopened_conversation_shows_its_summary_plan_and_review_cards(
    ollama: FakeOllama, services: Services, qtbot: Any
) -> None:
    store = services.open_history()
    conversation = store.create("Longue")
    store.append(conversation, ChatMessage("user", "Retiens : port 8443."))
    store.append(conversation, ChatMessage("assistant", "Noté."))
    store.append(conversation, ChatMessage("user", "Et maintenant ?"))
    store.append(
        conversation,
        ChatMessage("system", "- port 8443", origin="harness", meta=MessageMeta(compacted=2)),
    )
    store.append(
        conversation,
        ChatMessage("system", "1. a", origin="harness", meta=MessageMeta(plan=("a", "b"))),
    )
    store.append(conversation, ChatMessage("assistant", "Voilà."))
    review = MessageMeta(review="relu et corrigé : la moyenne", review_changed=True)
    store.append(conversation, ChatMessage("system", "x", origin="harness", meta=review))
    store.close()
    services.settings.update(lambda s: s.ui.__setitem__("conversation", conversation))

    async with open_window(services, qtbot, ollama.url) as window:
        shown = items(window)
        # the full history stays visible, the summary card beside it
        texts = [getattr(item, "markdown", lambda: "")() for item in shown]
        assert "Noté." in texts
        summary = next(item for item in shown if item.objectName() == "SummaryCard")
        assert summary.title == "Résumé des échanges précédents"
        assert not summary.is_open
        assert summary.body.text() == "- port 8443"
        plan = next(item for item in shown if item.objectName() == "PlanCard")
        assert plan.body.text() == "1. a\n2. b"
        assert not plan.is_open  # a past turn's plan is folded
        card = next(item for item in shown if item.objectName() == "ReviewCard")
        assert card.text() == "relu et corrigé : la moyenne"
        assert card.property("changed") is True


async def test_a_compaction_during_a_turn_adds_the_summary_card(
    ollama: FakeOllama, services: Services, qtbot: Any
) -> None:
    store = services.open_history()
    conversation = store.create("Longue")
    for index in range(30):
        store.append(conversation, ChatMessage("user", f"Question {index} : " + "détail " * 60))
        store.append(conversation, ChatMessage("assistant", f"Réponse {index} : " + "voici " * 60))
    store.close()
    services.settings.update(lambda s: s.ui.__setitem__("conversation", conversation))
    services.settings.update(lambda s: setattr(s, "num_ctx", 4096))

    def reply(body: dict[str, Any]) -> Reply:
        if body["messages"][0]["content"] == SUMMARY_SYSTEM:
            return Reply.text("- trente questions sur le projet")
        return Reply.text("Suite.")

    ollama.default = reply
    async with open_window(services, qtbot, ollama.url) as window:
        await send_and_wait(window, "On continue ?")
        summaries = [item for item in items(window) if item.objectName() == "SummaryCard"]
        assert [card.body.text() for card in summaries] == ["- trente questions sur le projet"]


async def test_the_code_models_badge_names_it(
    ollama: FakeOllama, services: Services, qtbot: Any
) -> None:
    store = services.open_history()
    conversation = store.create("Code")
    meta = MessageMeta(skill=SkillUsed("debogage-systematique", "Débogage", "qwen2.5-coder:7b"))
    store.append(conversation, ChatMessage("user", "Corrige calc.py", meta=meta))
    store.close()
    services.settings.update(lambda s: s.ui.__setitem__("conversation", conversation))
    async with open_window(services, qtbot, ollama.url) as window:
        (badge,) = [item for item in items(window) if isinstance(item, SkillBadge)]
        assert badge.badge.text() == "Méthode : Débogage · modèle : qwen2.5-coder:7b"


async def test_intelligence_switches_round_trip_and_reach_the_next_turn(
    ollama: FakeOllama, services: Services, qtbot: Any
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        dialog = window.settings_opener.open()
        steps = dialog.intelligence.steps
        assert not steps.plan.isChecked()  # off by default
        assert not steps.review.isChecked()
        assert steps.code_model.currentText() == ""
        steps.plan.setChecked(True)
        steps.review.setChecked(True)
        steps.code_model.setCurrentText("qwen2.5-coder:7b")
        dialog.save_button.click()
        await dialog.tasks.cancel_all()

        saved = services.settings.load()
        assert (saved.plan_enabled, saved.review_enabled, saved.code_model) == (
            True,
            True,
            "qwen2.5-coder:7b",
        )
        agent = window.runtime.make_agent(FixedApprover(allow=False))
        assert (agent.config.plan, agent.config.review, agent.config.code_model) == (
            True,
            True,
            "qwen2.5-coder:7b",
        )
        again = window.settings_opener.open()
        assert again.intelligence.steps.plan.isChecked()
        assert again.intelligence.steps.code_model.currentText() == "qwen2.5-coder:7b"
        again.reject()
        await again.mcp.tasks.cancel_all()
        await again.tasks.cancel_all()
        await dialog.mcp.tasks.cancel_all()


async def test_the_models_page_shows_the_context_a_turn_really_gets(
    services: Services, qtbot: Any
) -> None:
    cards = {"qwen2.5-coder:7b": ModelCard(parameters="temperature 0.7\nnum_ctx 6144")}
    with FakeOllama(cards=cards) as server:
        async with open_window(services, qtbot, server.url) as window:
            dialog = window.settings_opener.open()
            dialog.show_page("models")
            page = dialog.models
            await wait_until(lambda: len(page.names) == 2, what="the models are listed")

            def used(name: str) -> Any:
                item = page.table.item(page.names.index(name), COLUMNS.index("used"))
                assert item is not None
                return item

            assert used("qwen2.5-coder:7b").text() == "6\u202f144"  # its Modelfile's num_ctx
            assert "Modelfile" in used("qwen2.5-coder:7b").toolTip()
            assert used("llama3.1:8b").text() == "4\u202f096"  # Ollama's default
            assert "défaut du serveur" in used("llama3.1:8b").toolTip()
            dialog.reject()
            await dialog.mcp.tasks.cancel_all()
            await dialog.tasks.cancel_all()
