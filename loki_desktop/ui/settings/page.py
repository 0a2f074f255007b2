"""What every settings page opens with: its title and the sentence that says what it is for."""

from __future__ import annotations

from PySide6.QtWidgets import QVBoxLayout, QWidget

from loki_desktop.ui.qt_helpers import label


def page_layout(page: QWidget, title: str, intro: str) -> QVBoxLayout:
    """A settings page's column, opened by its title and the sentence that says what it is for."""
    layout = QVBoxLayout(page)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(10)
    layout.addWidget(label(title, "PageTitle"))
    layout.addWidget(label(intro, "PageIntro", wrap=True))
    return layout
