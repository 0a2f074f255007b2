"""Asking before a file is written ("Demander avant d'écrire"): the diff, then allow or refuse."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QFrame,
    QHBoxLayout,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from loki_desktop.core.file_change import FileChange
from loki_desktop.core.i18n import _
from loki_desktop.ui.changes.change_view import ChangeView, counts_label
from loki_desktop.ui.changes.decision_row import DecisionRow
from loki_desktop.ui.qt_helpers import label
from loki_desktop.ui.text.markdown_render import MarkdownRenderer


def _title(change: FileChange) -> str:
    if change.kind == "added":
        return _("Loki veut créer un fichier")
    if change.kind == "deleted":
        return _("Loki veut supprimer un fichier")
    return _("Loki veut modifier un fichier")


class WriteApprovalDialog(QDialog):
    """The change's path, `+N −M` and diff; Allow once / Refuse, and "always" for this chat."""

    def __init__(
        self,
        change: FileChange,
        cwd: Path,
        renderer: MarkdownRenderer,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("WriteApprovalDialog")
        self.setWindowTitle(_("Autoriser une écriture ?"))
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setMinimumWidth(640)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 18, 20, 18)
        layout.setSpacing(10)
        layout.addWidget(label(_title(change), "PageTitle"))
        head = QHBoxLayout()
        self.path_label = label(change.path, "CardMono", wrap=True)
        self.path_label.setToolTip(str(cwd / change.path))
        self.path_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        head.addWidget(self.path_label, 1)
        head.addWidget(counts_label(change, renderer.palette))
        layout.addLayout(head)
        self.change_view = ChangeView(change, renderer)
        scroll = QScrollArea()
        scroll.setObjectName("ChatScroll")
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(self.change_view)
        self.diff_scroll = scroll
        layout.addWidget(scroll, 1)
        # kept: its slot lives as long as the dialog
        self.decision = decision = DecisionRow(
            self, layout, _("Toujours autoriser les écritures dans cette conversation")
        )
        self.always = decision.always
        self.deny_button = decision.deny_button  # the default: Enter never approves
        self.allow_button = decision.allow_button

    def showEvent(self, event: QShowEvent) -> None:
        # sized once shown: the style sheet's font sets the diff's height
        inner = self.change_view.layout()
        if inner is not None:
            inner.activate()
        screen = QGuiApplication.primaryScreen()
        tallest = screen.availableGeometry().height() * 6 // 10 if screen else 600
        wanted = self.change_view.sizeHint().height() + 2 * self.diff_scroll.frameWidth()
        self.diff_scroll.setMinimumHeight(min(tallest, wanted))
        super().showEvent(event)
