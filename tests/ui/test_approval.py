"""run_shell asks first: the dialog shows the command and folder; allow, deny, always, stop."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from shiboken6 import isValid

from loki_desktop.core.services import Services
from loki_desktop.ui.changes.approval import ApprovalDialog
from loki_desktop.ui.chat.items import ToolCard
from loki_desktop.ui.window.main_window import MainWindow
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.helpers import open_window, wait_until


def last_card(window: MainWindow) -> ToolCard:
    assert window.sessions.current is not None
    return [i for i in window.sessions.current.view.items() if isinstance(i, ToolCard)][-1]


async def ask(window: MainWindow, text: str) -> ApprovalDialog:
    """Send `text` and return the approval dialog the turn opens."""
    window.composer.set_text(text)
    window.composer.submit()
    assert window.sessions.current is not None
    approver = window.sessions.current.approver
    await wait_until(lambda: approver.dialog is not None and approver.dialog.isVisible())
    assert approver.dialog is not None
    return approver.dialog


async def finished(window: MainWindow) -> None:
    await wait_until(
        lambda: window.sessions.current is not None and not window.sessions.current.runner.busy
    )


async def test_allow_once_runs_the_exact_command_in_the_workspace(
    ollama: FakeOllama, workspace: Path, services: Services, qtbot: Any
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        window.workspace_picker.choose(str(workspace))
        command = "echo bonjour > sortie.txt"
        ollama.script(Reply.tool("run_shell", {"command": command}), Reply.text("Fait."))
        dialog = await ask(window, "Écris bonjour dans sortie.txt")
        assert dialog.command_view.toPlainText() == command
        assert str(workspace.resolve()) in dialog.folder_label.text()
        assert window.sessions.current is not None
        assert window.sessions.current.runner.busy
        assert not (workspace / "sortie.txt").exists()
        dialog.allow_button.click()
        await finished(window)
        assert (workspace / "sortie.txt").read_text().strip() == "bonjour"
        card = last_card(window)
        assert (card.name, card.state) == ("run_shell", "ok")


async def test_deny_does_not_run_and_tells_the_model(
    ollama: FakeOllama, workspace: Path, services: Services, qtbot: Any
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        window.workspace_picker.choose(str(workspace))
        ollama.script(
            Reply.tool("run_shell", {"command": "touch interdit.txt"}), Reply.text("Compris.")
        )
        dialog = await ask(window, "Crée interdit.txt")
        dialog.deny_button.click()
        await finished(window)
        assert not (workspace / "interdit.txt").exists()
        card = last_card(window)
        assert card.state == "refused"  # said neutrally: REFUSÉ, not a red ÉCHEC
        assert card.chip.text() == "REFUSÉ"
        assert "refusée" in card.detail.text()
        tool_messages = [m for m in ollama.chat_requests[-1]["messages"] if m["role"] == "tool"]
        assert "did not approve" in tool_messages[-1]["content"]


async def test_always_allow_applies_to_this_command_in_this_conversation(
    ollama: FakeOllama, workspace: Path, services: Services, qtbot: Any
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        window.workspace_picker.choose(str(workspace))
        command = "echo x >> journal.txt"
        ollama.script(
            Reply.tool("run_shell", {"command": command}),
            Reply.text("Une."),
            Reply.tool("run_shell", {"command": command}),
            Reply.text("Deux."),
            Reply.tool("run_shell", {"command": "echo autre >> journal.txt"}),
            Reply.text("Trois."),
        )
        dialog = await ask(window, "Ajoute une ligne")
        dialog.always.setChecked(True)
        assert dialog.allow_button.text() == "Autoriser"
        dialog.allow_button.click()
        await finished(window)

        # the same command again: no dialog this time
        window.composer.set_text("Encore une")
        window.composer.submit()
        await finished(window)
        assert (workspace / "journal.txt").read_text().split() == ["x", "x"]

        # another command still asks
        dialog = await ask(window, "Et autre chose")
        dialog.deny_button.click()
        await finished(window)
        assert (workspace / "journal.txt").read_text().split() == ["x", "x"]


async def test_stop_while_asking_closes_the_dialog(
    ollama: FakeOllama, workspace: Path, services: Services, qtbot: Any
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        window.workspace_picker.choose(str(workspace))
        ollama.script(Reply.tool("run_shell", {"command": "touch jamais.txt"}))
        dialog = await ask(window, "Crée jamais.txt")
        window.sessions.stop_current()
        await finished(window)
        assert not isValid(dialog) or not dialog.isVisible()  # closed (and deleted)
        assert window.sessions.current is not None
        assert window.sessions.current.approver.dialog is None
        assert not (workspace / "jamais.txt").exists()
        assert last_card(window).state == "cut"
