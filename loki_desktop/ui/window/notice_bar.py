"""What went wrong while Loki started (a corrupt file moved aside), said once, dismissable."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QWidget

from loki_desktop.core.i18n import _
from loki_desktop.ui.qt_helpers import button, label


class NoticeBar(QFrame):
    """A quiet bar above the conversation; hidden until there is something to say."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("NoticeBar")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(14, 8, 10, 8)
        layout.setSpacing(12)
        self.text = label("", "", wrap=True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.text, 1)
        self.close_button = button(_("Compris"), flat=True)
        self.close_button.clicked.connect(self.hide)
        layout.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.hide()

    def show_messages(self, messages: list[str]) -> None:
        if not messages:
            return
        self.text.setText("\n".join(messages))
        self.show()
