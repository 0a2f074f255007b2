"""The foot of an approval dialog: "always…" for this conversation, Refuser and Autoriser."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QDialog, QHBoxLayout, QVBoxLayout

from loki_desktop.core.i18n import _
from loki_desktop.ui.qt_helpers import button


class DecisionRow:
    """Refuser is the default button (Enter never approves by accident); ticking "always"
    turns "Autoriser une fois" into "Autoriser"."""

    def __init__(self, dialog: QDialog, layout: QVBoxLayout, always_text: str) -> None:
        self.always = QCheckBox(always_text)
        layout.addWidget(self.always)
        row = QHBoxLayout()
        row.addStretch(1)
        self.deny_button = button(_("Refuser"))
        self.allow_button = button(_("Autoriser une fois"))
        row.addWidget(self.deny_button)
        row.addWidget(self.allow_button)
        layout.addLayout(row)
        self.deny_button.clicked.connect(dialog.reject)
        self.allow_button.clicked.connect(dialog.accept)
        self.always.toggled.connect(self._on_always)
        self.deny_button.setDefault(True)

    def _on_always(self, checked: bool) -> None:
        self.allow_button.setText(_("Autoriser") if checked else _("Autoriser une fois"))
