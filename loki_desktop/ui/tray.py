"""The system tray icon (when the desktop has a tray): Quick question, Open Loki, Quit."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from loki_desktop.core.i18n import _
from loki_desktop.ui.theme import app_icon


def tray_available() -> bool:
    return bool(QSystemTrayIcon.isSystemTrayAvailable())


class LokiTray(QObject):
    """Keeps Loki reachable when its window is closed."""

    def __init__(
        self,
        *,
        on_quick: Callable[[], None],
        on_open: Callable[[], None],
        on_quit: Callable[[], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.icon = QSystemTrayIcon(app_icon(), self)
        self.icon.setToolTip("Loki")
        self.menu = QMenu()
        self.quick_action = QAction(_("Question rapide…"), self.menu)
        self.open_action = QAction(_("Ouvrir Loki"), self.menu)
        self.quit_action = QAction(_("Quitter"), self.menu)
        self.quick_action.triggered.connect(on_quick)
        self.open_action.triggered.connect(on_open)
        self.quit_action.triggered.connect(on_quit)
        self.menu.addAction(self.quick_action)
        self.menu.addAction(self.open_action)
        self.menu.addSeparator()
        self.menu.addAction(self.quit_action)
        self.icon.setContextMenu(self.menu)
        self._on_open = on_open
        self.icon.activated.connect(self._activated)

    def show(self) -> None:
        self.icon.show()

    def hide(self) -> None:
        self.icon.hide()

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == QSystemTrayIcon.ActivationReason.Trigger:
            self._on_open()
