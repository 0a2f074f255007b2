"""Branches in the window: Régénérer (same model, another one), the arrows, edit and resend
(Ctrl+↑), a branch switch refused while a turn runs."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from loki_desktop.core.services import Services
from loki_desktop.ui.changes.undo_bar import UndoBar
from loki_desktop.ui.chat.branch_bar import BranchBar
from loki_desktop.ui.chat.items import AssistantMessage, NoticeLine, UserMessage
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.helpers import open_window, wait_until


def answers(window: Any) -> list[str]:
    view = window.sessions.current.view
    return [w.markdown() for w in view.items() if isinstance(w, AssistantMessage)]


def questions(window: Any) -> list[str]:
    view = window.sessions.current.view
    return [w.text for w in view.items() if isinstance(w, UserMessage)]


def bar(window: Any, kind: str) -> BranchBar:
    bars = [b for b in window.sessions.current.view.branch_bars() if b.kind == kind]
    return bars[-1]


def shows_versions(window: Any, label: str) -> bool:
    """The view (rebuilt from the store after a branch) shows a row with `label`."""
    bars = window.sessions.current.view.branch_bars()
    return any(b.position is not None and b.position.text() == label for b in bars)


def idle(window: Any) -> bool:
    current = window.sessions.current
    return current is not None and not current.runner.busy


async def send(window: Any, qtbot: Any, text: str) -> None:
    qtbot.keyClicks(window.composer.input, text)
    qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    await wait_until(lambda: idle(window) and text in questions(window), what="the turn")


async def test_regenerate_then_the_arrows_move_between_the_answers(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    ollama.script(Reply.text("Première."), Reply.text("Deuxième."), Reply.text("Par llama."))
    async with open_window(services, qtbot, ollama.url) as window:
        await send(window, qtbot, "Salut")
        await wait_until(
            lambda: any(b.kind == "answer" for b in window.sessions.current.view.branch_bars())
        )
        assert bar(window, "answer").versions is None  # one answer: no arrows yet
        assert bar(window, "question").versions is None  # the live question has its row too

        qtbot.mouseClick(
            bar(window, "answer").findChildren(type(window.composer.button))[0],
            Qt.MouseButton.LeftButton,
        )
        await wait_until(lambda: idle(window) and answers(window) == ["Deuxième."], what="2nd")
        await wait_until(lambda: shows_versions(window, "2/2"), what="the arrows")
        answer_bar = bar(window, "answer")
        assert answer_bar.position is not None
        assert answer_bar.position.text() == "2/2"
        assert answer_bar.next is not None
        assert not answer_bar.next.isEnabled()

        assert answer_bar.previous is not None
        answer_bar.previous.click()
        await wait_until(lambda: answers(window) == ["Première."], what="the first answer")
        assert bar(window, "answer").position.text() == "1/2"

        # Régénérer avec… another installed model: a third version, by that model
        menu = bar(window, "answer").model_menu()
        (llama,) = [a for a in menu.actions() if a.text() == "llama3.1:8b"]
        llama.trigger()
        await wait_until(lambda: idle(window) and answers(window) == ["Par llama."], what="3rd")
        assert ollama.chat_requests[-1]["model"] == "llama3.1:8b"
        await wait_until(lambda: shows_versions(window, "3/3"), what="the arrows")
        assert bar(window, "answer").position.text() == "3/3"
        assert window.windowTitle() == "Salut — Loki"


async def test_ctrl_up_edits_the_last_message_and_keeps_the_old_version(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    ollama.script(Reply.text("Réponse un."), Reply.text("Réponse deux."))
    async with open_window(services, qtbot, ollama.url) as window:
        await send(window, qtbot, "Combien font 2+2 ?")
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Up, Qt.KeyboardModifier.ControlModifier)
        assert window.composer.text() == "Combien font 2+2 ?"
        window.composer.set_text("")
        await send(window, qtbot, "Combien font 3+3 ?")

        assert questions(window) == ["Combien font 3+3 ?"]
        assert answers(window) == ["Réponse deux."]
        sent = [m["content"] for m in ollama.chat_requests[-1]["messages"] if m["role"] == "user"]
        assert sent == ["Combien font 3+3 ?"]  # the old version is not sent
        await wait_until(lambda: shows_versions(window, "2/2"), what="the arrows")
        question_bar = bar(window, "question")
        assert question_bar.position is not None
        assert question_bar.position.text() == "2/2"
        assert question_bar.previous is not None
        question_bar.previous.click()
        await wait_until(lambda: questions(window) == ["Combien font 2+2 ?"], what="the old one")
        assert answers(window) == ["Réponse un."]
        (edit,) = [
            b for b in bar(window, "question").findChildren(QPushButton) if b.text() == "Modifier"
        ]
        edit.click()
        assert window.composer.text() == "Combien font 2+2 ?"
        assert window.sessions.editing is not None
        assert "nouvelle version" in window.composer.hint.text()
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Escape)  # cancelled: nothing sent
        assert window.sessions.editing is None
        assert window.composer.text() == ""
        assert "Échap : arrêter" in window.composer.hint.text()


async def test_a_branch_switch_while_a_turn_runs_is_one_sentence_and_changes_nothing(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    gate = threading.Event()
    ollama.script(Reply.text("A."), Reply.text("B."), Reply.text("lent", " encore", gate=gate))
    async with open_window(services, qtbot, ollama.url) as window:
        await send(window, qtbot, "Question")
        qtbot.mouseClick(
            bar(window, "answer").findChildren(type(window.composer.button))[0],
            Qt.MouseButton.LeftButton,
        )
        await wait_until(lambda: idle(window) and answers(window) == ["B."], what="the 2nd answer")
        await wait_until(lambda: shows_versions(window, "2/2"), what="the arrows")
        arrows = bar(window, "answer")
        qtbot.keyClicks(window.composer.input, "Et ensuite ?")
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
        # the turn holds its conversation once it streams (its first piece shown)
        await wait_until(lambda: "lent" in "".join(answers(window)), what="the turn streaming")

        assert arrows.previous is not None
        arrows.previous.click()

        view = window.sessions.current.view
        notices = [w.message for w in view.items() if isinstance(w, NoticeLine)]
        assert any("attendez qu'elle se termine" in n for n in notices), notices
        gate.set()
        await wait_until(lambda: idle(window), what="the turn's end")
        assert answers(window)[:1] == ["B."]


async def test_an_edit_says_which_files_the_old_branch_changed_and_offers_their_undo(
    services: Services, ollama: FakeOllama, qtbot: Any, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("avant\n")
    ollama.script(
        Reply.tool("write_file", {"path": "notes.txt", "content": "après\n"}),
        Reply.text("Écrit."),
        Reply.text("Rien écrit cette fois."),
    )
    async with open_window(services, qtbot, ollama.url) as window:
        window.workspace_picker.choose(str(workspace))
        await send(window, qtbot, "Écris notes.txt")
        assert (workspace / "notes.txt").read_text() == "après\n"
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Up, Qt.KeyboardModifier.ControlModifier)
        window.composer.set_text("")
        await send(window, qtbot, "Ne touche rien")
        await wait_until(lambda: shows_versions(window, "2/2"), what="the new version shown")

        view = window.sessions.current.view
        notices = [w.message for w in view.items() if isinstance(w, NoticeLine)]
        assert any("notes.txt" in n and "(tour 1)" in n for n in notices), notices
        assert (workspace / "notes.txt").read_text() == "après\n"  # nothing undone silently
        (offered,) = [w for w in view.items() if isinstance(w, UndoBar)]
        offered.button.click()
        await wait_until(
            lambda: (workspace / "notes.txt").read_text() == "avant\n", what="the undo"
        )


async def test_regenerate_with_a_model_of_another_configured_server(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    ollama.script(Reply.text("Réponse locale."))
    with FakeOllama(models=("mistral:7b",)) as other:
        other.script(Reply.text("Réponse de l'autre serveur."))
        settings = services.settings.load()
        settings.model_servers = [
            {"kind": "ollama", "name": "Local", "url": ollama.url},
            {"kind": "ollama", "name": "Atelier", "url": other.url},
        ]
        settings.model_server = "Local"
        services.settings.save(settings)
        async with open_window(services, qtbot) as window:
            await wait_until(lambda: window.model_picker.models_of("Atelier") == ["mistral:7b"])
            await send(window, qtbot, "Bonjour")
            await wait_until(lambda: window.sessions.current.view.branch_bars())
            menu = bar(window, "answer").model_menu()
            (mistral,) = [a for a in menu.actions() if a.text() == "mistral:7b"]
            mistral.trigger()
            await wait_until(
                lambda: idle(window) and answers(window) == ["Réponse de l'autre serveur."],
                what="the other server's answer",
            )
            assert other.chat_requests[-1]["model"] == "mistral:7b"
            assert window.runtime.server.name == "Local"  # the server in use did not change
            assert window.runtime.settings.model_server == "Local"
