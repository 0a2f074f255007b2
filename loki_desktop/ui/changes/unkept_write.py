"""Asking before a write that could not be undone: its checkpoint could not be kept."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QHBoxLayout, QVBoxLayout, QWidget

from loki_desktop.core.i18n import _
from loki_desktop.ui.qt_helpers import button, label


class UnkeptWriteDialog(QDialog):
    """Why the previous state of a file could not be kept; « Ne pas écrire » (the default)
    or « Écrire quand même, sans retour possible », for this one write."""

    def __init__(self, path: str, reason: str, cwd: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("UnkeptWriteDialog")
        self.setWindowTitle(_("Écrire sans retour possible ?"))
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setMinimumWidth(520)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 18, 20, 18)
        layout.setSpacing(10)
        layout.addWidget(label(_("Cette modification ne pourrait pas être annulée"), "PageTitle"))
        self.reason_label = label(reason, "PageIntro", wrap=True)
        layout.addWidget(self.reason_label)
        layout.addWidget(
            label(
                _(
                    "Loki n'écrit pas un fichier sans pouvoir le remettre comme avant. Libérez "
                    "de la place (ou augmentez le budget des points de restauration), ou "
                    "écrivez quand même : l'état actuel de {path} sera perdu."
                ).format(path=path),
                "PageIntro",
                wrap=True,
            )
        )
        layout.addWidget(label(_("Dossier : {cwd}").format(cwd=cwd), "CardMono", wrap=True))
        row = QHBoxLayout()
        row.addStretch(1)
        self.deny_button = button(_("Ne pas écrire"))
        self.allow_button = button(_("Écrire quand même, sans retour possible"))
        row.addWidget(self.deny_button)
        row.addWidget(self.allow_button)
        layout.addLayout(row)
        self.deny_button.clicked.connect(self.reject)
        self.allow_button.clicked.connect(self.accept)
        self.deny_button.setDefault(True)  # Enter never throws a file's past away
