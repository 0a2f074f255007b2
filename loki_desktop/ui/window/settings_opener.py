"""Opening the settings dialog over the window, and saying when it applied or closed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from loki_desktop.ui.runtime import Runtime
from loki_desktop.ui.theme import Theme

if TYPE_CHECKING:
    from loki_desktop.ui.settings.dialog import SettingsDialog


class SettingsOpener(QObject):
    """`open()` shows a new dialog (it deletes itself once closed); `applied` after Save,
    `closed` after any close (the MCP page turns servers on and off as it is used)."""

    applied = Signal()
    closed = Signal()

    def __init__(self, runtime: Runtime, theme: Theme, parent: QWidget) -> None:
        super().__init__(parent)
        self.runtime = runtime
        self.theme = theme
        self.parent_widget = parent

    def open(self) -> SettingsDialog:
        # imported at first use: its pages are not needed for the window's first frame
        from loki_desktop.ui.settings.dialog import SettingsDialog

        dialog = SettingsDialog(self.runtime, self.theme, self.parent_widget)
        dialog.applied.connect(self.applied)
        dialog.finished.connect(lambda _result: self.closed.emit())
        dialog.open()
        return dialog
