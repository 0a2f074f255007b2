"""The workspace folder without a window: chosen, remembered, forgotten when gone, watched."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from loki_desktop.core.services import Services
from loki_desktop.ui.qt_helpers import OwnedTasks
from loki_desktop.ui.workspace.folder import Workspace
from loki_desktop.ui.workspace.picker import WorkspacePicker
from loki_desktop.ui.workspace.preview_button import PreviewButton
from loki_desktop.ui.workspace.problems import ProblemsFeed, ProblemsPanel
from tests.ui.helpers import open_runtime, wait_until

BROKEN = "def total(values):\n    return sum(valeurs)\n"


@contextlib.asynccontextmanager
async def open_workspace(services: Services, qtbot: Any) -> AsyncIterator[Workspace]:
    async with open_runtime(services) as runtime:
        picker = WorkspacePicker()
        qtbot.addWidget(picker)
        panel = ProblemsPanel()
        qtbot.addWidget(panel)
        feed = ProblemsFeed(panel)
        tasks = OwnedTasks()
        try:
            yield Workspace(runtime, picker, PreviewButton(runtime), feed, tasks)
        finally:
            await tasks.cancel_all()
            await feed.stop()


async def test_a_chosen_folder_is_saved_first_among_the_recent_and_watched(
    services: Services, workspace: Path, tmp_path: Path, qtbot: Any
) -> None:
    (workspace / "calc.py").write_text(BROKEN, encoding="utf-8")
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    async with open_workspace(services, qtbot) as chosen:
        chosen.picker.choose(str(earlier))
        chosen.picker.choose(str(workspace))  # the person picks a folder
        saved = services.settings.load()
        assert saved.workspace == str(workspace)
        assert saved.recent_workspaces == [str(workspace), str(earlier)]
        panel = chosen.feed.panel
        await wait_until(lambda: panel.count() == 1, within=20)  # its problem, found
        assert panel.rows()[0][0] == "calc.py"

        # checks turned off in the settings: the watcher stops, the panel says so
        chosen.runtime.settings.auto_checks = False
        chosen.follow_settings()
        await wait_until(lambda: not panel.watching and chosen.feed.watcher is None)


async def test_a_folder_gone_since_the_last_run_is_forgotten(
    services: Services, workspace: Path, qtbot: Any
) -> None:
    settings = services.settings.load()
    settings.workspace = str(workspace)
    settings.recent_workspaces = [str(workspace)]
    services.settings.save(settings)
    shutil.rmtree(workspace)
    async with open_workspace(services, qtbot) as chosen:
        chosen.restore()
        assert chosen.runtime.settings.workspace == ""
        assert chosen.picker.folder == ""
        assert chosen.picker.text() == "Aucun dossier"
        await chosen.watch()
        assert chosen.feed.watcher is None  # nothing to watch


def test_the_folder_chooser_opens_in_the_last_folder_else_home(qtbot: Any, tmp_path: Path) -> None:
    picker = WorkspacePicker()
    qtbot.addWidget(picker)
    gone, kept = tmp_path / "gone", tmp_path / "kept"
    kept.mkdir()
    picker.set_folder("", [str(gone), str(kept)])
    dialog = picker.open_chooser()  # no folder open: the last one that still exists
    assert Path(dialog.directory().absolutePath()) == kept
    dialog.reject()
    picker.set_folder("", [str(gone)])
    dialog = picker.open_chooser()  # none left: the home folder, not where Loki started
    assert Path(dialog.directory().absolutePath()) == Path.home()
    dialog.reject()
