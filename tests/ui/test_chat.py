"""The chat in the window: sending, streaming, stop, cards, badge, errors, reopening."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.events import CheckReport, Problem, SkillUsed
from loki_desktop.core.message_meta import MessageMeta
from loki_desktop.core.messages import CallRecord, ChatMessage
from loki_desktop.core.services import Services
from loki_desktop.ui.changes.shell_changes import ShellChangesList
from loki_desktop.ui.chat.items import (
    AssistantMessage,
    CheckCard,
    ErrorCard,
    HarnessNote,
    NoticeLine,
    SkillBadge,
    ToolCard,
    UserMessage,
)
from loki_desktop.ui.window.main_window import MainWindow
from tests.fakes.demo_conversation import (
    FINAL_ANSWER,
    QUESTION,
    SALES_CSV,
    SCRIPT_FIXED,
    reply_for,
)
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.helpers import open_window, wait_until


def kinds(window: MainWindow) -> list[str]:
    assert window.sessions.current is not None
    return [type(item).__name__ for item in window.sessions.current.view.items()]


def streamed(session: Any) -> str:
    """The answer streaming in a conversation's view, as received so far."""
    message = session.view.streaming_message
    return message.markdown() if message is not None else ""


async def send_and_wait(window: MainWindow, text: str, within: float = 15.0) -> None:
    window.composer.set_text(text)
    window.composer.submit()
    await wait_until(
        lambda: window.sessions.current is not None and not window.sessions.current.runner.busy,
        within,
    )


async def test_a_message_streams_into_a_new_conversation(
    ollama: FakeOllama, qtbot: Any, services: Services
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        ollama.script(Reply.text("Bonjour", " **le**", " monde", token_delay=0.05))
        assert window.model_picker.current_model() == "qwen2.5-coder:7b"
        window.composer.input.setFocus()
        qtbot.keyClicks(window.composer.input, "Salut Loki")
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
        session = window.sessions.current
        assert session is not None
        assert window.composer.busy
        assert window.composer.button.text() == "Arrêter"
        assert window.composer.text() == ""

        # the answer shows while it is still streaming
        await wait_until(lambda: session.view.streaming_message is not None)
        await wait_until(lambda: "Bonjour" in session.view.streaming_message.body.plain_text())
        assert session.runner.busy

        await wait_until(lambda: not session.runner.busy)
        user, answer = session.view.items()
        assert isinstance(user, UserMessage)
        assert user.text == "Salut Loki"
        assert isinstance(answer, AssistantMessage)
        assert answer.markdown() == "Bonjour **le** monde"
        assert "Bonjour le monde" in answer.body.plain_text()  # rendered, the ** are gone
        assert not window.composer.busy

        # saved, listed, titled after the message
        stored = window.runtime.store.messages(session.id)
        assert [(m.role, m.content) for m in stored] == [
            ("user", "Salut Loki"),
            ("assistant", "Bonjour **le** monde"),
        ]
        assert window.conversations.ids() == [session.id]
        assert window.title.full_text == "Salut Loki"
        assert ollama.chat_requests[0]["model"] == "qwen2.5-coder:7b"


async def test_shift_enter_breaks_the_line_instead_of_sending(
    ollama: FakeOllama, qtbot: Any, services: Services
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        qtbot.keyClicks(window.composer.input, "ligne 1")
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
        qtbot.keyClicks(window.composer.input, "ligne 2")
        assert window.composer.text() == "ligne 1\nligne 2"
        assert window.sessions.current is None
        assert ollama.chat_requests == []


async def test_stop_cancels_the_turn_and_keeps_the_partial_answer(
    ollama: FakeOllama, services: Services, qtbot: Any
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        ollama.script(Reply.text(*[f"mot{i} " for i in range(200)], token_delay=0.02))
        window.composer.set_text("Raconte une longue histoire")
        window.composer.submit()
        session = window.sessions.current
        assert session is not None
        await wait_until(lambda: "mot3" in streamed(session))
        window.composer.button.click()  # the button reads "Arrêter" while busy
        await wait_until(lambda: not session.runner.busy)

        assert session.runner.last_reason == "cancelled"
        stored = window.runtime.store.messages(session.id)
        assert stored[-1].role == "assistant"
        assert stored[-1].cut
        assert stored[-1].content.startswith("mot0 mot1 mot2 mot3")
        assert "mot199" not in stored[-1].content
        items = session.view.items()
        assert isinstance(items[1], AssistantMessage)
        assert items[1].cut_note.isVisibleTo(items[1])
        assert isinstance(items[-1], NoticeLine)
        assert not window.composer.busy


async def test_escape_stops_the_running_turn(
    ollama: FakeOllama, qtbot: Any, services: Services
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        ollama.script(Reply.text(*[f"t{i} " for i in range(300)], token_delay=0.02))
        window.composer.set_text("Encore")
        window.composer.submit()
        session = window.sessions.current
        assert session is not None
        await wait_until(lambda: "t2" in streamed(session))
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Escape)
        await wait_until(lambda: not session.runner.busy)
        assert session.runner.last_reason == "cancelled"
        assert window.runtime.store.messages(session.id)[-1].cut


async def test_tool_calls_show_as_cards_keyed_by_call_id(
    ollama: FakeOllama, workspace: Path, services: Services, qtbot: Any
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        (workspace / "notes.txt").write_text("une note\n", encoding="utf-8")
        window.workspace_picker.choose(str(workspace))
        ollama.script(
            Reply.tools(
                ("read_file", {"path": "notes.txt"}), ("read_file", {"path": "absent.txt"})
            ),
            Reply.text("Lu."),
        )
        await send_and_wait(window, "Lis notes.txt et absent.txt")
        assert kinds(window) == ["UserMessage", "ToolCard", "ToolCard", "AssistantMessage"]
        assert window.sessions.current is not None
        first, second = window.sessions.current.view.items()[1:3]
        assert isinstance(first, ToolCard)
        assert isinstance(second, ToolCard)
        assert first.call_id != second.call_id
        assert window.sessions.current.view.tool_card(first.call_id) is first
        assert (first.name, first.args, first.state) == ("read_file", {"path": "notes.txt"}, "ok")
        assert first.chip.text() == "OK"
        assert "une note" in first.output
        assert second.state == "error"
        assert second.chip.text() == "ÉCHEC"
        assert "absent.txt" in second.output
        # arguments and result are folded until asked for
        assert first.args_view is None  # built when first unfolded
        first.args_button.click()
        assert first.args_view is not None
        assert first.args_view.isVisibleTo(first)
        assert '"path": "notes.txt"' in first.args_view.toPlainText()
        assert first.output_view is None  # built when first unfolded
        first.result_button.click()
        assert first.output_view is not None
        assert first.output_view.isVisibleTo(first)
        assert "une note" in first.output_view.toPlainText()
        layout = first.layout()
        assert layout is not None
        assert layout.indexOf(first.args_view) < layout.indexOf(first.output_view)
        first.result_button.click()
        assert not first.output_view.isVisibleTo(first)


async def test_error_card_offers_a_retry_that_answers_again(
    ollama: FakeOllama, services: Services, qtbot: Any
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        ollama.script(Reply.http_error(500, "GPU en feu"), Reply.text("Réponse", " retrouvée"))
        await send_and_wait(window, "Bonjour")
        assert window.sessions.current is not None
        card = window.sessions.current.view.items()[-1]
        assert isinstance(card, ErrorCard)
        assert "GPU en feu" in card.message
        assert card.retry_button is not None
        card.retry_button.click()
        await wait_until(
            lambda: window.sessions.current is not None and not window.sessions.current.runner.busy
        )
        assert kinds(window)[-1] == "AssistantMessage"
        stored = window.runtime.store.messages(window.sessions.current.id)
        # the question is stored once; the retry answered it
        assert [m.role for m in stored] == ["user", "assistant"]
        assert stored[-1].content == "Réponse retrouvée"


async def test_full_scripted_conversation_is_shown_saved_and_reopened(
    ollama: FakeOllama, workspace: Path, services: Services, qtbot: Any
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        (workspace / "ventes.csv").write_text(SALES_CSV, encoding="utf-8")
        window.workspace_picker.choose(str(workspace))
        ollama.script(*[lambda body: reply_for(body, token_delay=0.0)] * 5)
        await send_and_wait(window, QUESTION, within=30)

        expected = [
            "UserMessage",
            "SkillBadge",
            "ToolCard",  # read_file
            "ToolCard",  # write_file, with the bug
            "CheckCard",  # ... which the check finds
            "ToolCard",  # write_file, fixed
            "CheckCard",  # ... and the check passes
            "AssistantMessage",
            "UndoBar",  # the turn wrote a file: it can be taken back
        ]
        assert kinds(window) == expected
        assert window.sessions.current is not None
        items = window.sessions.current.view.items()
        badge = items[1]
        assert isinstance(badge, SkillBadge)
        assert badge.badge.text() == "Méthode : Analyse de données"
        failing, passing = items[4], items[6]
        assert isinstance(failing, CheckCard)
        assert isinstance(passing, CheckCard)
        assert not failing.ok
        assert failing.path == "stats_ventes.py"
        assert any("statistics" in message for _line, _col, message in failing.problems)
        assert passing.ok
        assert passing.problems == []
        answer = items[-2]
        assert isinstance(answer, AssistantMessage)
        assert answer.markdown() == FINAL_ANSWER
        assert (workspace / "stats_ventes.py").read_text(encoding="utf-8") == SCRIPT_FIXED
        conversation_id = window.sessions.current.id

        window.save_state()

    # restart: a new runtime and window over the same data folder reopen it as it was
    async with open_window(services, qtbot, ollama.url) as reopened:
        assert reopened.sessions.current is not None
        assert reopened.sessions.current.id == conversation_id
        assert kinds(reopened) == expected
        items = reopened.sessions.current.view.items()
        assert isinstance(items[1], SkillBadge)
        assert items[1].badge.text() == "Méthode : Analyse de données"
        cards = [item for item in items if isinstance(item, ToolCard)]
        assert [(c.name, c.state) for c in cards] == [
            ("read_file", "ok"),
            ("write_file", "ok"),
            ("write_file", "ok"),
        ]
        checks = [item for item in items if isinstance(item, CheckCard)]
        assert [c.ok for c in checks] == [False, True]
        last = items[-2]
        assert isinstance(last, AssistantMessage)
        assert last.markdown() == FINAL_ANSWER


async def test_a_reopened_conversation_shows_every_kind_of_stored_message(
    ollama: FakeOllama, services: Services, qtbot: Any
) -> None:
    store = services.open_history()
    conversation_id = store.create("Historique")
    store.append(
        conversation_id,
        ChatMessage("user", "Corrige calc.py", meta=MessageMeta(skill=SkillUsed("x", "Débogage"))),
    )
    store.append(
        conversation_id,
        ChatMessage(
            "assistant", "", tool_calls=(CallRecord("call_1", "write_file", {"path": "a.py"}),)
        ),
    )
    store.append(
        conversation_id,
        ChatMessage(
            "tool",
            "wrote a.py",
            tool_call_id="call_1",
            tool_name="write_file",
            meta=MessageMeta(
                ok=True,
                summary="a.py écrit",
                check=CheckReport("a.py", False, (Problem(3, 1, "F821 Undefined name `y`"),)),
            ),
        ),
    )
    store.append(conversation_id, ChatMessage("user", "Fix a.py:3:1", origin="harness"))
    store.append(conversation_id, ChatMessage("assistant", "Presque fini", cut=True))
    store.close()
    settings = services.settings.load()
    settings.ui["conversation"] = conversation_id
    services.settings.save(settings)

    async with open_window(services, qtbot, ollama.url) as window:
        assert kinds(window) == [
            "UserMessage",
            "SkillBadge",
            "ToolCard",
            "CheckCard",
            "HarnessNote",  # the check follow-up is a quiet note, not the user's message
            "AssistantMessage",
        ]
        assert window.sessions.current is not None
        items = window.sessions.current.view.items()
        card = items[2]
        assert isinstance(card, ToolCard)
        assert (card.state, card.detail.text(), card.output) == ("ok", "a.py écrit", "wrote a.py")
        check = items[3]
        assert isinstance(check, CheckCard)
        assert check.problems == [(3, 1, "F821 Undefined name `y`")]
        cut = items[-1]
        assert isinstance(cut, AssistantMessage)
        assert cut.cut_note.isVisibleTo(cut)


# The `extra` column of each row below as older versions wrote it: plain JSON, a key this
# version does not know, a key missing (the skill's title, the undo's `removed` and `left`).
OLD_EXTRAS = [
    {"skill": {"name": "x", "title": "Débogage", "score": 0.7}},
    None,
    {
        "ok": True,
        "summary": "a.py écrit",
        "change": {"path": "a.py", "kind": "added", "diff": "", "content": "x = 1\n"},
        "seconds": 0.2,
    },
    {"ok": False, "summary": "code 1", "shell_changes": [{"path": "b.txt", "kind": "added"}]},
    {"undo": {"direction": "redo", "turn": 2, "restored": ["a.py"]}},
]


async def test_a_conversation_stored_by_an_older_version_reopens(
    ollama: FakeOllama, services: Services, qtbot: Any, loki_home: Path
) -> None:
    store = services.open_history()
    conversation_id = store.create("Ancienne")
    calls = (
        CallRecord("call_1", "write_file", {"path": "a.py"}),
        CallRecord("call_2", "run_shell", {"command": "touch b.txt"}),
    )
    for message in (
        ChatMessage("user", "Écris a.py"),
        ChatMessage("assistant", "", tool_calls=calls),
        ChatMessage("tool", "wrote a.py", tool_call_id="call_1", tool_name="write_file"),
        ChatMessage("tool", "exit 1", tool_call_id="call_2", tool_name="run_shell"),
        ChatMessage("user", "[Note from Loki: …]", origin="harness"),
    ):
        store.append(conversation_id, message)
    store.close()
    db = sqlite3.connect(loki_home / "history.db")
    with db:
        ids = [row[0] for row in db.execute("SELECT id FROM messages ORDER BY id")]
        for message_id, extra in zip(ids, OLD_EXTRAS, strict=True):
            text = json.dumps(extra) if extra is not None else None
            db.execute("UPDATE messages SET extra = ? WHERE id = ?", (text, message_id))
    db.close()
    settings = services.settings.load()
    settings.ui["conversation"] = conversation_id
    services.settings.save(settings)

    async with open_window(services, qtbot, ollama.url) as window:
        assert kinds(window) == ["UserMessage", "SkillBadge", "ToolCard", "ToolCard", "HarnessNote"]
        assert window.sessions.current is not None
        _user, badge, write, shell, note = window.sessions.current.view.items()
        assert isinstance(badge, SkillBadge)
        assert badge.title == "Débogage"
        assert isinstance(write, ToolCard)
        assert (write.state, write.detail.text()) == ("ok", "a.py écrit")
        assert write.change_view is not None
        assert isinstance(shell, ToolCard)
        assert shell.state == "error"
        (listed,) = shell.findChildren(ShellChangesList)
        assert [c.path for c in listed.changes] == ["b.txt"]
        assert isinstance(note, HarnessNote)
        assert note.text() == "Modifications du tour 2 rétablies : a.py."


async def test_a_turn_that_ends_off_screen_frees_its_view(
    ollama: FakeOllama, qtbot: Any, services: Services
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        ollama.script(Reply.text(*[f"m{i} " for i in range(30)], token_delay=0.02))
        window.composer.set_text("Une longue réponse")
        window.composer.submit()
        session = window.sessions.current
        assert session is not None
        await wait_until(lambda: "m2" in streamed(session))
        window.sessions.new_conversation()  # left while it streams: it finishes off screen
        assert session.id in window.sessions.by_id
        assert window.stack.indexOf(session.view) != -1
        await wait_until(lambda: not session.runner.busy)
        assert session.runner.last_reason == "completed"
        assert session.id not in window.sessions.by_id
        assert window.stack.count() == 1  # the welcome page only
        stored = window.runtime.store.messages(session.id)
        assert stored[-1].content.endswith("m29 ")
        # opened again, it shows the whole answer from the history
        window.sessions.open_conversation(session.id)
        assert window.sessions.current is not None
        answer = window.sessions.current.view.items()[-1]
        assert isinstance(answer, AssistantMessage)
        assert answer.markdown().endswith("m29 ")


async def test_an_older_error_card_can_no_longer_retry(
    ollama: FakeOllama, services: Services, qtbot: Any
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        ollama.script(Reply.http_error(500, "GPU en feu"), Reply.text("Deuxième réponse"))
        await send_and_wait(window, "Première question")
        assert window.sessions.current is not None
        card = window.sessions.current.view.items()[-1]
        assert isinstance(card, ErrorCard)
        assert card.retry_button is not None
        assert card.retry_button.isEnabled()
        await send_and_wait(window, "Deuxième question")
        # its retry would answer the newest message, not the one that failed
        assert not card.retry_button.isEnabled()


async def test_a_host_change_lets_the_running_turn_finish(
    ollama: FakeOllama, qtbot: Any, services: Services
) -> None:
    with FakeOllama() as other:
        async with open_window(services, qtbot, ollama.url) as window:
            ollama.script(Reply.text(*[f"m{i} " for i in range(40)], token_delay=0.02))
            window.composer.set_text("Une longue réponse")
            window.composer.submit()
            session = window.sessions.current
            assert session is not None
            await wait_until(lambda: "m2" in streamed(session))
            window.runtime.set_host(other.url)  # what Réglages › Enregistrer does
            await wait_until(lambda: not session.runner.busy)
            assert session.runner.last_reason == "completed"
            stored = window.runtime.store.messages(session.id)
            assert stored[-1].content.endswith("m39 ")
            assert not stored[-1].cut
            # the next turn goes to the new server
            other.script(Reply.text("Depuis l'autre serveur"))
            await send_and_wait(window, "Et maintenant ?")
            assert other.chat_requests[-1]["messages"][-1]["content"] == "Et maintenant ?"
            assert len(ollama.chat_requests) == 1


async def test_the_model_chosen_in_the_header_is_saved_and_used(
    ollama: FakeOllama, qtbot: Any, services: Services
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        picker = window.model_picker
        assert picker.current_model() == "qwen2.5-coder:7b"
        picker.setCurrentIndex(picker.findData("llama3.1:8b"))
        assert services.settings.load().model == "llama3.1:8b"
        ollama.script(Reply.text("Bonjour"), Reply.text("Rapide"))
        await send_and_wait(window, "Salut")
        assert ollama.chat_requests[-1]["model"] == "llama3.1:8b"
        # the quick prompt's agent reads the same place
        from loki_desktop.ui.quick_prompt import QuickPrompt

        quick = QuickPrompt(window.runtime, window.rendering.renderer)
        qtbot.addWidget(quick)
        quick.ask("Vite")
        await wait_until(lambda: not quick.runner.busy)
        assert ollama.chat_requests[-1]["model"] == "llama3.1:8b"


async def test_a_saved_model_the_server_lacks_stays_chosen_and_is_reported(
    ollama: FakeOllama, qtbot: Any, services: Services
) -> None:
    settings = services.settings.load()
    settings.model = "absent:1b"
    services.settings.save(settings)
    async with open_window(services, qtbot, ollama.url) as window:
        picker = window.model_picker
        # not silently replaced by another: the turns would use a model nobody chose
        assert picker.current_model() == "absent:1b"
        assert picker.currentText() == "absent:1b (absent)"
        assert window.banner.isVisibleTo(window)
        assert "absent:1b" in window.banner.title.text()
        assert "ollama pull absent:1b" in window.banner.body.text()
        agent = window.runtime.make_agent(FixedApprover(allow=False))
        assert agent.config.model == "absent:1b"
        picker.setCurrentIndex(picker.findData("llama3.1:8b"))
        assert not window.banner.isVisibleTo(window)
        assert window.runtime.settings.model == "llama3.1:8b"
        assert services.settings.load().model == "llama3.1:8b"
