"""The Problems panel fed by the workspace watcher: rows, live updates, open, ask Loki to fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from loki_desktop.core.services import Services
from loki_desktop.ui.chat.items import UserMessage
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.helpers import open_window, wait_until

BROKEN = "def total(values):\n    return sum(valeurs)\n"


def with_workspace(services: Services, workspace: Path, *, checks: bool = True) -> None:
    settings = services.settings.load()
    settings.workspace = str(workspace)
    settings.auto_checks = checks
    services.settings.save(settings)


async def test_problems_of_the_workspace_show_update_and_open(
    services: Services,
    ollama: FakeOllama,
    workspace: Path,
    qtbot: Any,
    opened_urls: list[str],
) -> None:
    (workspace / "calc.py").write_text(BROKEN, encoding="utf-8")
    (workspace / "ok.py").write_text("x = 1\n", encoding="utf-8")
    with_workspace(services, workspace)
    async with open_window(services, qtbot, ollama.url) as window:
        panel = window.problems
        window.problems_button.setChecked(True)
        assert panel.isVisibleTo(window)
        # the initial scan finds the existing problem
        await wait_until(lambda: panel.count() == 1, within=20)
        ((name, line, message),) = panel.rows()
        assert (name, line) == ("calc.py", 2)
        assert "valeurs" in message
        assert window.problems_button.text() == "Problèmes (1)"

        # a new broken file appears as it is saved, and goes away once fixed
        (workspace / "web.py").write_text("print(undefined_name)\n", encoding="utf-8")
        await wait_until(lambda: panel.count() == 2, within=20)
        (workspace / "web.py").write_text("print('ok')\n", encoding="utf-8")
        await wait_until(lambda: panel.count() == 1, within=20)
        assert [row[0] for row in panel.rows()] == ["calc.py"]

        # double-click opens the file with the desktop's default application
        item = panel.tree.topLevelItem(0)
        assert item is not None
        panel.tree.itemDoubleClicked.emit(item, 0)
        assert opened_urls == [(workspace / "calc.py").resolve().as_uri()]


async def test_ask_loki_to_fix_sends_the_problems(
    services: Services, ollama: FakeOllama, workspace: Path, qtbot: Any
) -> None:
    (workspace / "calc.py").write_text(BROKEN, encoding="utf-8")
    with_workspace(services, workspace)
    ollama.script(Reply.text("Je corrige."))
    async with open_window(services, qtbot, ollama.url) as window:
        panel = window.problems
        await wait_until(lambda: panel.count() == 1, within=20)
        assert panel.fix_button.isEnabled()
        panel.fix_button.click()
        await wait_until(
            lambda: window.sessions.current is not None and not window.sessions.current.runner.busy
        )
        assert window.sessions.current is not None
        sent = window.sessions.current.view.items()[0]
        assert isinstance(sent, UserMessage)
        assert "calc.py:2:" in sent.text
        assert "valeurs" in sent.text
        user_messages = [m for m in ollama.chat_requests[0]["messages"] if m["role"] == "user"]
        assert "calc.py:2:" in user_messages[-1]["content"]


async def test_no_watching_when_automatic_checks_are_off(
    services: Services, ollama: FakeOllama, workspace: Path, qtbot: Any
) -> None:
    (workspace / "calc.py").write_text(BROKEN, encoding="utf-8")
    with_workspace(services, workspace, checks=False)
    async with open_window(services, qtbot, ollama.url) as window:
        assert window.problems_feed.watcher is None
        assert "désactivée" in window.problems.status.text()
        assert window.problems.count() == 0


async def test_a_workspace_reached_through_a_symlink_shows_relative_paths(
    services: Services, ollama: FakeOllama, tmp_path: Path, qtbot: Any
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "calc.py").write_text(BROKEN, encoding="utf-8")
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    with_workspace(services, link)
    async with open_window(services, qtbot, ollama.url) as window:
        panel = window.problems
        await wait_until(lambda: panel.count() == 1, within=20)
        assert [row[0] for row in panel.rows()] == ["calc.py"]
        assert "- calc.py:2:" in panel.message_for_loki()
        assert str(real) not in panel.message_for_loki()


async def test_switching_workspace_restarts_the_watcher_and_forgets_the_old_problems(
    services: Services, ollama: FakeOllama, tmp_path: Path, qtbot: Any
) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    for folder in (first, second):
        folder.mkdir()
    (first / "calc.py").write_text(BROKEN, encoding="utf-8")
    (second / "web.py").write_text("print(undefined_name)\n", encoding="utf-8")
    with_workspace(services, first)
    async with open_window(services, qtbot, ollama.url) as window:
        panel = window.problems
        await wait_until(lambda: panel.count() == 1, within=20)
        old_watcher = window.problems_feed.watcher
        assert old_watcher is not None
        window.workspace_picker.choose(str(second))
        await wait_until(lambda: [row[0] for row in panel.rows()] == ["web.py"], within=20)
        watcher = window.problems_feed.watcher
        assert watcher is not None
        assert watcher is not old_watcher
        assert watcher.root == second.resolve()
        # the old folder is no longer watched: a new problem there does not show
        (first / "other.py").write_text("print(nope)\n", encoding="utf-8")
        (second / "web.py").write_text("print('ok')\n", encoding="utf-8")
        await wait_until(lambda: panel.count() == 0, within=20)
        assert panel.rows() == []
