"""The workspace folder: chosen, remembered, given to the tools and watched for problems."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from loki_desktop.ui.qt_helpers import OwnedTasks
from loki_desktop.ui.runtime import Runtime
from loki_desktop.ui.workspace.picker import WorkspacePicker, remember_recent
from loki_desktop.ui.workspace.preview_button import PreviewButton
from loki_desktop.ui.workspace.problems import ProblemsFeed


class Workspace:
    """Follows the picker: the folder is saved, given to the MCP servers and the preview, and
    the watcher restarted on it (its problems fill the panel)."""

    def __init__(
        self,
        runtime: Runtime,
        picker: WorkspacePicker,
        preview: PreviewButton,
        feed: ProblemsFeed,
        tasks: OwnedTasks,
    ) -> None:
        self.runtime = runtime
        self.picker = picker
        self.preview = preview
        self.feed = feed
        self.tasks = tasks
        picker.changed.connect(self.choose)
        feed.on_file_changed = self._file_changed
        # the index build's progress (files read, files to read; 0, 0 when done): the window
        # shows it as a line
        self.on_index_progress: Callable[[int, int], None] = lambda _done, _total: None

    def restore(self) -> None:
        """The saved folder in the picker, forgotten if it is gone since the last run."""
        settings = self.runtime.settings
        if settings.workspace and self.runtime.workspace() is None:
            # were it to come back, its file tools would be on while the picker says "no folder"
            settings.workspace = ""
        self.picker.set_folder(settings.workspace, settings.recent_workspaces)
        self.preview.refresh()

    def choose(self, folder: str) -> None:
        settings = self.runtime.settings
        settings.workspace = folder
        settings.recent_workspaces = remember_recent(settings.recent_workspaces, folder)
        self.runtime.save_settings()
        self.runtime.update_roots()
        self.preview.refresh()
        self.watch()

    def watch(self) -> asyncio.Task[None]:
        """(Re)start the watcher on the current workspace; its problems fill the panel. The
        workspace's index is brought up to date meanwhile, in the background, then fed by
        the watcher (a turn then reads only the files it saw change)."""
        self.tasks.spawn(self.runtime.build_index(self.on_index_progress))
        return self.tasks.spawn(self._watch())

    async def _watch(self) -> None:
        await self.feed.watch(self.runtime.workspace(), enabled=self.runtime.settings.auto_checks)
        tools = self.runtime.knowledge()
        if tools is not None:
            tools.knowledge.fed = self.feed.watcher is not None

    def _file_changed(self, path: Path) -> None:
        tools = self.runtime.knowledge()
        if tools is not None:
            tools.knowledge.changed(path)

    def follow_settings(self) -> None:
        """Checks turned on or off in the settings: the watcher follows."""
        if self.runtime.settings.auto_checks != self.feed.panel.watching:
            self.watch()
