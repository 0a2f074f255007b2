"""A write whose checkpoint cannot be kept asks first: « Ne pas écrire » is the default, and
« Écrire quand même, sans retour possible » writes that one file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from loki_desktop.core.services import Services
from loki_desktop.ui.changes.unkept_write import UnkeptWriteDialog
from loki_desktop.ui.chat.items import ToolCard
from loki_desktop.ui.window.main_window import MainWindow
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.helpers import open_window, wait_until

BIG = 11_000_000  # over the smallest budget a person can choose (10 MB)


def _setup(services: Services, workspace: Path) -> None:
    settings = services.settings.load()
    settings.workspace = str(workspace)
    settings.auto_checks = False
    settings.checkpoints_budget_mb = 10
    services.settings.save(settings)
    (workspace / "big.txt").write_bytes(b"a" * BIG)


async def _dialog(window: MainWindow, ollama: FakeOllama) -> UnkeptWriteDialog:
    ollama.script(
        Reply.tool("write_file", {"path": "big.txt", "content": "court\n"}), Reply.text("Voilà.")
    )
    window.composer.set_text("Réécris big.txt")
    window.composer.submit()
    session = window.sessions.current
    assert session is not None
    approver = session.approver
    await wait_until(lambda: isinstance(approver.dialog, UnkeptWriteDialog), what="no question")
    assert isinstance(approver.dialog, UnkeptWriteDialog)
    return approver.dialog


def _card(window: MainWindow) -> ToolCard:
    assert window.sessions.current is not None
    return [i for i in window.sessions.current.view.items() if isinstance(i, ToolCard)][-1]


@pytest.mark.parametrize("allow", [False, True])
async def test_a_write_that_could_not_be_undone_is_asked_about(
    ollama: FakeOllama, workspace: Path, services: Services, qtbot: Any, allow: bool
) -> None:
    _setup(services, workspace)
    async with open_window(services, qtbot, ollama.url) as window:
        dialog = await _dialog(window, ollama)
        assert "budget des points de restauration" in dialog.reason_label.text()
        assert dialog.deny_button.isDefault()
        assert (workspace / "big.txt").stat().st_size == BIG  # nothing written while it asks
        (dialog.allow_button if allow else dialog.deny_button).click()
        session = window.sessions.current
        assert session is not None
        await wait_until(lambda: not session.runner.busy, what="the turn did not end")
        card = _card(window)
        if allow:
            assert (workspace / "big.txt").read_text() == "court\n"
            assert card.state == "ok"
        else:
            assert (workspace / "big.txt").stat().st_size == BIG
            assert card.state == "error"
            assert "big.txt n'a pas été écrit" in card.detail.text()
