"""The Markdown renderer in the theme's colours, made anew when the theme changes."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from loki_desktop.core.i18n import _
from loki_desktop.ui.text.markdown_render import MarkdownRenderer
from loki_desktop.ui.theme import Theme


class ThemedRenderer(QObject):
    """`renderer` follows the theme; `changed` hands the new one to whoever renders."""

    changed = Signal(object)  # the new MarkdownRenderer

    def __init__(self, theme: Theme, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.theme = theme
        self.renderer = self._make()
        theme.changed.connect(self._on_theme)

    def _make(self) -> MarkdownRenderer:
        return MarkdownRenderer(self.theme.palette, _("Copier"))

    def _on_theme(self) -> None:
        self.renderer = self._make()
        self.changed.emit(self.renderer)
