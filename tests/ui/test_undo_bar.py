"""The window's "Annuler les modifications de ce tour": restores, asks per file, redoes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from loki_desktop.core.events import ChangedFile, ToolCall, ToolResult
from loki_desktop.core.services import Services
from loki_desktop.persistence.history import History
from loki_desktop.ui.changes.shell_changes import ShellChangesList
from loki_desktop.ui.changes.undo_bar import UndoBar
from loki_desktop.ui.chat.items import HarnessNote, ToolCard
from loki_desktop.ui.chat.view import ChatView
from loki_desktop.ui.turns import apply_event
from loki_desktop.ui.window.main_window import MainWindow
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.helpers import open_window, wait_until


def with_workspace(services: Services, workspace: Path) -> None:
    settings = services.settings.load()
    settings.workspace = str(workspace)
    settings.auto_checks = False
    services.settings.save(settings)


def bars(window: MainWindow) -> list[UndoBar]:
    assert window.sessions.current is not None
    return [item for item in window.sessions.current.view.items() if isinstance(item, UndoBar)]


async def a_turn_that_writes(window: MainWindow, ollama: FakeOllama) -> UndoBar:
    ollama.script(
        Reply.tools(
            ("write_file", {"path": "a.txt", "content": "nouveau\n"}),
            ("write_file", {"path": "b.txt", "content": "créé\n"}),
        ),
        Reply.text("Voilà."),
    )
    window.composer.set_text("Écris")
    window.composer.submit()
    await wait_until(
        lambda: window.sessions.current is not None and bars(window), what="no undo bar"
    )
    (bar,) = bars(window)
    assert window.sessions.current is not None
    # at the end of the turn, after the answer
    assert window.sessions.current.view.items()[-1] is bar
    return bar


async def answer(window: MainWindow, text: str) -> None:
    session = window.sessions.current
    assert session is not None
    await wait_until(lambda: session.undo.dialog is not None, what="no question asked")
    box = session.undo.dialog
    assert box is not None
    (chosen,) = [b for b in box.buttons() if b.text() == text]
    chosen.click()


async def test_undo_restores_the_turn_and_redo_puts_it_back(
    ollama: FakeOllama, qtbot: Any, services: Services, workspace: Path, loki_home: Path
) -> None:
    (workspace / "a.txt").write_text("ancien\n")
    with_workspace(services, workspace)
    async with open_window(services, qtbot, ollama.url) as window:
        bar = await a_turn_that_writes(window, ollama)
        assert "modifié  a.txt  +1 −1" in bar.files.text()
        assert "ajouté  b.txt  +1 −0" in bar.files.text()
        assert bar.button.text() == "Annuler les modifications de ce tour"

        window.activateWindow()
        bar.button.setFocus()
        await wait_until(bar.button.hasFocus, what="the undo button focused")
        bar.button.click()  # as Space on the focused button does
        await wait_until(lambda: bar.direction == "redo", what=bar.status.text())
        assert bar.button.hasFocus()  # the focus stayed where it was, not on the sidebar
        assert (workspace / "a.txt").read_text() == "ancien\n"
        assert not (workspace / "b.txt").exists()
        assert bar.button.text() == "Rétablir les modifications de ce tour"

        bar.button.click()
        await wait_until(lambda: bar.direction == "undo", what=bar.status.text())
        assert (workspace / "a.txt").read_text() == "nouveau\n"
        assert (workspace / "b.txt").read_text() == "créé\n"
        session_id = window.sessions.current.id if window.sessions.current else ""
    history = History(loki_home / "history.db")
    notes = [m.meta.undo.direction for m in history.messages(session_id) if m.meta.undo is not None]
    history.close()
    assert notes == ["undo", "redo"]


async def test_a_file_changed_since_is_asked_for_and_the_bar_comes_back_on_reopening(
    ollama: FakeOllama, qtbot: Any, services: Services, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("ancien\n")
    with_workspace(services, workspace)
    async with open_window(services, qtbot, ollama.url) as window:
        bar = await a_turn_that_writes(window, ollama)
        (workspace / "a.txt").write_text("à la main\n")
        bar.button.click()
        await answer(window, "Laisser tel quel")
        await wait_until(lambda: "Laissés tels quels" in bar.status.text())
        assert (workspace / "a.txt").read_text() == "à la main\n"
        assert not (workspace / "b.txt").exists()
        assert bar.direction == "undo"  # a.txt is still to be undone

        bar.button.click()
        await answer(window, "Écraser")
        await wait_until(lambda: bar.direction == "redo", what=bar.status.text())
        assert (workspace / "a.txt").read_text() == "ancien\n"
        conversation = window.sessions.current.id if window.sessions.current else ""

    async with open_window(services, qtbot, ollama.url) as window:  # a restart
        window.sessions.open_conversation(conversation)
        (again,) = bars(window)
        assert again.direction == "redo"


def test_the_run_shell_card_lists_the_files_the_command_changed(qtbot: Any) -> None:
    from loki_desktop.ui.text.markdown_render import MarkdownRenderer
    from loki_desktop.ui.theme import Theme

    view = ChatView(MarkdownRenderer(Theme("light").palette, "Copier"))
    qtbot.addWidget(view)
    apply_event(view, ToolCall("call_1", "run_shell", {"command": "make"}))
    changes = (ChangedFile("build.log", "added"), ChangedFile("src/a.c", "modified"))
    apply_event(view, ToolResult("call_1", "run_shell", True, "exit code 0", "ok", (), changes))
    card = view.tool_card("call_1")
    assert isinstance(card, ToolCard)
    (listed,) = card.findChildren(ShellChangesList)
    assert listed.text.text() == "build.log (ajouté)\nsrc/a.c (modifié)"


async def test_deleting_the_conversation_deletes_its_checkpoints(
    ollama: FakeOllama, qtbot: Any, services: Services, workspace: Path, loki_home: Path
) -> None:
    (workspace / "a.txt").write_text("ancien\n")
    with_workspace(services, workspace)
    async with open_window(services, qtbot, ollama.url) as window:
        await a_turn_that_writes(window, ollama)
        assert window.sessions.current is not None
        conversation = window.sessions.current.id
        points = window.runtime.checkpoints
        assert points is not None
        assert points.turns(conversation)
        window.sessions.delete_conversation(conversation)
        await wait_until(lambda: not points.turns(conversation))
    blobs = [p for p in (loki_home / "checkpoints" / "blobs").rglob("*") if p.is_file()]
    assert blobs == []


async def test_a_reopened_conversation_shows_the_undo_as_a_note(
    ollama: FakeOllama, qtbot: Any, services: Services, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("ancien\n")
    with_workspace(services, workspace)
    async with open_window(services, qtbot, ollama.url) as window:
        bar = await a_turn_that_writes(window, ollama)
        bar.button.click()
        await wait_until(lambda: bar.direction == "redo", what=bar.status.text())
        conversation = window.sessions.current.id if window.sessions.current else ""
    async with open_window(services, qtbot, ollama.url) as window:
        window.sessions.open_conversation(conversation)
        assert window.sessions.current is not None
        (note,) = [i for i in window.sessions.current.view.items() if isinstance(i, HarnessNote)]
        assert note.text() == "Modifications du tour 1 annulées : a.txt, b.txt."


async def test_the_checkpoints_budget_is_a_setting_of_the_window(
    ollama: FakeOllama, qtbot: Any, services: Services
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        dialog = window.settings_opener.open()  # a child of the window: it goes with it
        budget = dialog.general.checkpoints_budget
        assert budget.value() == 500
        assert (budget.minimum(), budget.maximum()) == (10, 100_000)
        budget.setValue(2000)
        dialog.save_button.click()
        await dialog.mcp.tasks.cancel_all()
        await dialog.tasks.cancel_all()
    assert services.settings.load().checkpoints_budget_mb == 2000
