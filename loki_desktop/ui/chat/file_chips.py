"""Attached files as chips: the name and the size, in the composer (removable) and the message."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLayout,
    QSizePolicy,
    QToolButton,
    QWidget,
)

from loki_desktop.core.attachments.model import human_size
from loki_desktop.core.i18n import _
from loki_desktop.core.message_meta import FileChip as ChipInfo
from loki_desktop.ui.qt_helpers import label


class FileChip(QFrame):
    """One file: "notes.txt · 12 Ko" (a PDF says its kind; a file sent in part says so)."""

    remove_requested = Signal()

    def __init__(self, info: ChipInfo, *, removable: bool = False) -> None:
        super().__init__()
        self.setObjectName("FileChip")
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        self.info = info
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 2, 4, 2)
        row.setSizeConstraint(QLayout.SizeConstraint.SetFixedSize)  # as wide as its text
        row.setSpacing(6)
        parts = [info.name, human_size(info.size)]
        if info.cut:
            parts.append(_("début seulement"))
        self.text = label(" · ".join(parts), "FileChipText")
        row.addWidget(self.text)
        self.remove_button: QToolButton | None = None
        if removable:
            self.remove_button = QToolButton()
            self.remove_button.setObjectName("FileChipRemove")
            self.remove_button.setText("✕")
            self.remove_button.setToolTip(_("Retirer ce fichier"))
            self.remove_button.clicked.connect(self.remove_requested)
            row.addWidget(self.remove_button)


class FileChipRow(QWidget):
    """Chips side by side (hidden while there is none)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._row = QHBoxLayout(self)
        self._row.setContentsMargins(0, 0, 0, 0)
        self._row.setSpacing(6)
        self._row.addStretch(1)
        self.hide()

    def chips(self) -> list[FileChip]:
        items = (self._row.itemAt(i) for i in range(self._row.count()))
        widgets = [item.widget() for item in items if item is not None]
        return [widget for widget in widgets if isinstance(widget, FileChip)]

    def add(self, chip: FileChip) -> FileChip:
        self._row.insertWidget(self._row.count() - 1, chip)
        self.show()
        return chip

    def remove(self, chip: FileChip) -> None:
        self._row.removeWidget(chip)
        chip.deleteLater()
        self.setVisible(bool(self.chips()))


def chip_row(infos: Sequence[ChipInfo]) -> FileChipRow:
    """The chips of a sent message."""
    row = FileChipRow()
    for info in infos:
        row.add(FileChip(info))
    return row
