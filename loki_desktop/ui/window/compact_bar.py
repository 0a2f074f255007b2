"""Small screens: the top bar collapses into compact menus when it lacks room."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QBoxLayout, QMenu, QToolButton, QWidget

from loki_desktop.core.i18n import _

if TYPE_CHECKING:
    from PySide6.QtWidgets import QSplitter

    from loki_desktop.ui.chat.conversations import ConversationList
    from loki_desktop.ui.window.header import Header

COMPACT_TEXT_PX = 92  # a compact menu button's text when the room is not known yet
COMPACT_TEXT_MAX_PX = 220  # at most this much of its text, when the top bar has room
HYSTERESIS_PX = 48  # back to the full bar only with this much to spare: no flip-flopping
TITLE_FULL_PX = 200  # the title's share of the full bar (at most "Nouvelle conversation")
MIN_TEXT_PX = 40  # and at least this much, when the top bar is very short of room
TITLE_MIN_PX = 60  # the conversation title's least width once compact
COMPACT_MARGINS = (10, 8, 8, 8)  # the top bar's margins once compact


class MenuButton(QToolButton):
    """A compact stand-in for a wide header control: a short text, its menu on click."""

    def __init__(self, object_name: str, accessible: str) -> None:
        super().__init__()
        self.setObjectName(object_name)
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.setAccessibleName(accessible)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def metrics(self) -> QFontMetrics:
        font = QFont(self.font())
        font.setBold(True)  # as the style sheet draws it
        return QFontMetrics(font)

    def set_short_text(self, text: str, room: int = COMPACT_TEXT_PX) -> None:
        shown = self.metrics().elidedText(text, Qt.TextElideMode.ElideMiddle, room)
        if self.text() != f"{shown} ▾":  # unchanged, it asks for no new layout
            self.setText(f"{shown} ▾")
        self.setToolTip(text)


class CompactBar(QObject):
    """Swaps the header's model picker and folder button for two compact menus when the
    header is too narrow for them, and back when it widens again."""

    def __init__(
        self,
        header: Header,
        splitter: QSplitter,
        conversations: ConversationList,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.splitter = splitter
        self.conversations = conversations
        self.compact = False
        self.header = header
        layout = header.layout()
        assert isinstance(layout, QBoxLayout)
        self.model_button = MenuButton("CompactModel", _("Modèle"))
        self.model_menu = QMenu(self.model_button)
        self.model_menu.aboutToShow.connect(self._fill_models)
        self.model_button.setMenu(self.model_menu)
        self.folder_button = MenuButton("CompactFolder", _("Dossier de travail"))
        self.folder_button.setMenu(header.workspace_picker.menu())  # same recent folders
        layout.insertWidget(layout.indexOf(header.model_picker) + 1, self.model_button)
        layout.insertWidget(layout.indexOf(header.workspace_picker) + 1, self.folder_button)
        self.model_button.hide()
        self.folder_button.hide()
        # Tab reaches each where the control it stands for would be
        QWidget.setTabOrder(header.model_picker, self.model_button)
        QWidget.setTabOrder(header.workspace_picker, self.folder_button)
        self._wide = (
            header.model_caption,
            header.model_picker,
            header.model_marks,
            header.workspace_picker,
        )
        header.model_picker.currentIndexChanged.connect(lambda _i: self._texts())
        header.workspace_picker.changed.connect(lambda _f: self._texts())
        margins = layout.contentsMargins()
        self._margins = (margins.left(), margins.top(), margins.right(), margins.bottom())
        self._spacing = layout.spacing()
        self._title_min = header.title.minimumWidth()
        header.installEventFilter(self)
        self._texts()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.header and event.type() == QEvent.Type.Resize:
            self.update_mode()
        elif watched is self.header and event.type() == QEvent.Type.LayoutRequest and self.compact:
            self._texts()  # a button's text changed ("Problèmes (12)"): share the room again
        return False

    def full_width(self) -> int:
        """What the header needs to show every control at its full size."""
        widgets = [self.header.title, *self._wide, *self._always()]
        shown = [w for w in widgets if w is not self.header.model_marks or self._marks_wanted()]
        needed = sum(
            max(w.minimumWidth(), w.sizeHint().width()) if w is not self.header.title else 0
            for w in shown
        )
        needed += min(TITLE_FULL_PX, self.header.title.sizeHint().width())  # not "Nouvelle co…"
        left, _top, right, _bottom = self._margins
        return needed + self._spacing * len(shown) + left + right

    def _always(self) -> list[QWidget]:
        return [self.header.problems_button, self.header.settings_button]

    def _marks_wanted(self) -> bool:
        return bool(self.header.model_marks.marks)

    def update_mode(self) -> None:
        """One rule: compact when the full bar does not fit; full again only when it fits
        with HYSTERESIS_PX to spare (a width near the limit does not flip it back and forth)."""
        width, full = self.header.width(), self.full_width()
        compact = width < full + HYSTERESIS_PX if self.compact else width < full
        if compact == self.compact:
            if compact:
                self._texts()  # the room for the menus' texts follows the width
            self._fit_sidebar()
            return
        self.compact = compact
        marks = self.header.model_marks
        marks.suppressed = compact
        for widget in self._wide:
            widget.setVisible(not compact and (widget is not marks or bool(marks.marks)))
        self.model_button.setVisible(compact)
        self.folder_button.setVisible(compact)
        layout = self.header.layout()
        assert layout is not None
        layout.setContentsMargins(*(COMPACT_MARGINS if compact else self._margins))
        layout.setSpacing(6 if compact else self._spacing)
        self.header.title.setMinimumWidth(TITLE_MIN_PX if compact else self._title_min)
        self._texts()
        self._fit_sidebar()

    def _fit_sidebar(self) -> None:
        """The sidebar gives up width (down to its minimum) when the top bar lacks it."""
        layout = self.header.layout()
        assert layout is not None
        lacking = layout.minimumSize().width() - self.header.width()
        splitter = self.splitter
        side, rest = splitter.sizes()
        room = side - self.conversations.minimumWidth()
        if lacking > 0 and room > 0 and not self.conversations.isHidden():
            give = min(lacking, room)
            splitter.setSizes([side - give, rest + give])

    def _text_room(self) -> int:
        """How much of its text each compact menu can show in the top bar's width now
        (a "Problèmes (12)" leaves less)."""
        left, _top, right, _bottom = COMPACT_MARGINS
        others = [self.header.problems_button, self.header.settings_button]
        fixed = left + right + 6 * 4 + TITLE_MIN_PX + sum(w.sizeHint().width() for w in others)
        button = self.model_button
        # what the button adds around its text: padding, outline, the " ▾"
        chrome = button.sizeHint().width() - button.metrics().horizontalAdvance(button.text())
        chrome += button.metrics().horizontalAdvance(" ▾") + 2
        room = (self.header.width() - fixed) // 2 - chrome
        return max(MIN_TEXT_PX, min(COMPACT_TEXT_MAX_PX, room))  # elided only when short

    def _texts(self) -> None:
        room = self._text_room() if self.compact else COMPACT_TEXT_PX
        picker = self.header.model_picker
        self.model_button.set_short_text(picker.currentText() or _("Aucun modèle"), room)
        self.model_button.setEnabled(picker.isEnabled())
        folder = self.header.workspace_picker
        name = Path(folder.folder).name or folder.folder if folder.folder else _("Aucun dossier")
        self.folder_button.set_short_text(name, room)  # the folder, without "Dossier : "
        self.folder_button.setToolTip(folder.toolTip())

    def _fill_models(self) -> None:
        picker = self.header.model_picker
        menu = self.model_menu
        menu.clear()
        for row in range(picker.count()):
            action = menu.addAction(picker.itemText(row))
            action.setCheckable(True)
            action.setChecked(row == picker.currentIndex())
            action.triggered.connect(lambda _checked=False, r=row: picker.setCurrentIndex(r))
