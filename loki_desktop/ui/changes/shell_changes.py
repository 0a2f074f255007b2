"""The files a shell command changed, listed under its card ("modifiés par la commande")."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QFrame, QVBoxLayout, QWidget

from loki_desktop.core.changes.labels import kind_label
from loki_desktop.core.events import ChangedFile
from loki_desktop.core.i18n import _
from loki_desktop.ui.qt_helpers import ElidedLabel, label

# Past this many files the list says how many more there are.
SHOWN_MAX = 20


class ShellChangesList(QFrame):
    """A heading and one line a file: `path (modifié)`."""

    def __init__(self, changes: Sequence[ChangedFile], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ShellChanges")
        self.changes = list(changes)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(
            label(_("Modifiés par la commande ({n}) :").format(n=len(changes)), "CardDetail")
        )
        lines = [
            _("{path} ({kind})").format(path=c.path, kind=kind_label(c.kind))
            for c in changes[:SHOWN_MAX]
        ]
        if len(changes) > SHOWN_MAX:
            lines.append(_("… et {n} autres").format(n=len(changes) - SHOWN_MAX))
        # a deep path is elided ("…", whole in the tooltip): no minimum width for the card
        self.text = ElidedLabel("\n".join(lines), "ToolOutput")
        layout.addWidget(self.text)
