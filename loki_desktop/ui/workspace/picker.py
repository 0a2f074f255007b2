"""The workspace button: the folder that jails every file tool, with the recent ones."""

from __future__ import annotations

import functools
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFileDialog, QMenu, QToolButton, QWidget

from loki_desktop.core.i18n import _

MAX_RECENT = 8


def remember_recent(recent: list[str], folder: str) -> list[str]:
    """`folder` first, no duplicates, at most MAX_RECENT entries."""
    if not folder:
        return recent
    return [folder, *[f for f in recent if f != folder]][:MAX_RECENT]


class WorkspacePicker(QToolButton):
    """Shows the current folder; its menu lists recent folders and opens a folder chooser."""

    changed = Signal(str)  # the new folder, "" for none
    shown = Signal(str)  # the folder it shows now, whoever set it ("" for none)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("WorkspaceButton")
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.folder = ""
        self.recent: list[str] = []
        self._menu = QMenu(self)
        self.setMenu(self._menu)
        self._menu.aboutToShow.connect(self._fill_menu)
        self.dialog: QFileDialog | None = None
        self._show()

    def set_folder(self, folder: str, recent: list[str]) -> None:
        self.folder = folder
        self.recent = list(recent)
        self._show()

    def choose(self, folder: str) -> None:
        """Switch to `folder` ("" for none) and tell the window."""
        if folder and not Path(folder).is_dir():
            self.recent = [f for f in self.recent if f != folder]
            self._show()
            return
        self.folder = folder
        self.recent = remember_recent(self.recent, folder)
        self._show()
        self.changed.emit(folder)

    def open_chooser(self) -> QFileDialog:
        dialog = QFileDialog(self, _("Choisir le dossier de travail"))
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.setDirectory(self.start_folder())
        dialog.fileSelected.connect(self.choose)
        dialog.finished.connect(dialog.deleteLater)
        self.dialog = dialog
        dialog.open()  # not exec(): the event loop keeps running
        return dialog

    def start_folder(self) -> str:
        """Where the chooser opens: the folder in use, else the last one that still exists,
        else the home folder (never the folder Loki happened to be launched from)."""
        for folder in (self.folder, *self.recent):
            if folder and Path(folder).is_dir():
                return folder
        return str(Path.home())

    def _show(self) -> None:
        self.shown.emit(self.folder)
        if self.folder:
            self.setText(_("Dossier : {name}").format(name=Path(self.folder).name or self.folder))
            self.setToolTip(
                _("Les outils de fichiers travaillent dans {folder}").format(folder=self.folder)
            )
        else:
            self.setText(_("Aucun dossier"))
            self.setToolTip(_("Choisissez un dossier pour donner à Loki ses outils de fichiers"))

    def _fill_menu(self) -> None:
        menu = self._menu
        menu.clear()
        menu.addAction(_("Choisir un dossier…"), self.open_chooser)
        if self.recent:
            menu.addSeparator()
            header = menu.addAction(_("Récents"))
            header.setEnabled(False)
            for folder in self.recent:
                action = menu.addAction(folder, functools.partial(self.choose, folder))
                action.setCheckable(True)
                action.setChecked(folder == self.folder)
        menu.addSeparator()
        menu.addAction(_("Travailler sans dossier"), lambda: self.choose(""))
