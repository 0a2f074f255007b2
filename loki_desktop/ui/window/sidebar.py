"""The conversation list shown or hidden (Ctrl+B), and narrower without cutting its texts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication, QLabel

from loki_desktop.core.i18n import _

if TYPE_CHECKING:
    from loki_desktop.ui.chat.composer import Composer
    from loki_desktop.ui.chat.conversations import ConversationList
    from loki_desktop.ui.runtime import Runtime

SIDEBAR_KEY = "sidebar_visible"


class Sidebar(QObject):
    """The conversation list shown or hidden (Ctrl+B); the choice is kept between runs."""

    def __init__(
        self,
        runtime: Runtime,
        conversations: ConversationList,
        composer: Composer,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.runtime = runtime
        self.conversations = conversations
        self.composer = composer
        visible = runtime.settings.ui.get(SIDEBAR_KEY, True)
        conversations.setVisible(visible is not False)
        new_button = conversations.new_button
        self._new_text = new_button.text()
        self._short_text = _("+  Nouvelle")
        new_button.setAccessibleName(_("Nouvelle conversation"))
        new_button.setToolTip(_("Nouvelle conversation (Ctrl+N)"))
        conversations.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.conversations and event.type() == QEvent.Type.Resize:
            self._fit_new_button()
        return False

    def _fit_new_button(self) -> None:
        """A narrow list says "+ Nouvelle" rather than a cut "Nouvelle conversatic"."""
        new_button = self.conversations.new_button
        metrics = QFontMetrics(new_button.font())
        # the list's width less its margins, the button's padding and outline
        room = self.conversations.width() - 28 - 34
        fits = metrics.horizontalAdvance(self._new_text) <= room
        new_button.setText(self._new_text if fits else self._short_text)
        tagline = self.conversations.findChild(QLabel, "BrandTagline")
        if tagline is not None:  # a cut "MODÈLES L" says less than nothing
            # beside the 40 px logo and its spacing, within the list's margins
            room_for_tagline = self.conversations.width() - 28 - 50
            width = QFontMetrics(tagline.font()).horizontalAdvance(tagline.text())
            tagline.setVisible(width <= room_for_tagline)

    @property
    def visible(self) -> bool:
        return not self.conversations.isHidden()

    def toggle(self) -> None:
        self.set_visible(not self.visible)

    def set_visible(self, visible: bool) -> None:
        conversations = self.conversations
        focus = QApplication.focusWidget()
        if not visible and focus is not None and conversations.isAncestorOf(focus):
            self.composer.input.setFocus()  # focus must not vanish with the list
        conversations.setVisible(visible)
        self.runtime.settings.ui[SIDEBAR_KEY] = visible

    def show_for_search(self) -> None:
        """Ctrl+K: the search field, even when the list was hidden."""
        if not self.visible:
            self.set_visible(True)
        search = self.conversations.search
        search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        search.selectAll()
