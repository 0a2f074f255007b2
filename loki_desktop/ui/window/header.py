"""The window's top bar: the conversation's title, the model, the folder, Problems, Settings."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout

from loki_desktop.core.i18n import _
from loki_desktop.ui.models.marks import MarksRow
from loki_desktop.ui.qt_helpers import ElidedLabel, button, label
from loki_desktop.ui.runtime import Runtime
from loki_desktop.ui.window.backend_status import ModelPicker
from loki_desktop.ui.workspace.picker import WorkspacePicker
from loki_desktop.ui.workspace.preview_button import PreviewButton


class Header(QFrame):
    """Its controls only; what they do is wired by the window (ui.window.compact_bar narrows it)."""

    def __init__(self, runtime: Runtime) -> None:
        super().__init__()
        self.setObjectName("Header")
        head = QHBoxLayout(self)
        head.setContentsMargins(18, 10, 14, 10)
        head.setSpacing(10)
        self.title = ElidedLabel(_("Nouvelle conversation"), "ConversationTitle")
        self.title.setMinimumWidth(120)
        head.addWidget(self.title, 1)
        self.model_caption = label(_("MODÈLE"), "HeaderCaption")
        head.addWidget(self.model_caption)
        self.model_picker = ModelPicker()
        head.addWidget(self.model_picker)
        self.model_marks = MarksRow()
        self.model_marks.hide()
        head.addWidget(self.model_marks, 0, Qt.AlignmentFlag.AlignVCenter)
        self.workspace_picker = WorkspacePicker()
        head.addWidget(self.workspace_picker)
        self.preview = PreviewButton(runtime)
        head.addWidget(self.preview.widget)
        self.problems_button = button(_("Problèmes"))
        self.problems_button.setCheckable(True)
        head.addWidget(self.problems_button)
        self.settings_button = button(_("Réglages"))
        head.addWidget(self.settings_button)

    def show_problem_count(self, count: int) -> None:
        self.problems_button.setText(
            _("Problèmes ({n})").format(n=count) if count else _("Problèmes")
        )
