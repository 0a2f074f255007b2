"""Small screens: the first size fits the screen, the top bar collapses, the sidebar hides."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QEvent, QObject, QRect, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QGuiApplication
from PySide6.QtWidgets import QApplication, QLabel, QMenu, QToolButton, QWidget

from loki_desktop.core.i18n import _

if TYPE_CHECKING:
    from loki_desktop.ui.main_window import MainWindow

FIRST_SIZE = QSize(1240, 820)  # what a new window asks for on a roomy screen
MIN_SIZE = QSize(800, 560)  # every control stays reachable down to this
FRAME_ALLOWANCE_PX = 32  # a title bar, before the window manager has framed the window
COMPACT_TEXT_PX = 92
COMPACT_MARGINS = (10, 8, 8, 8)  # a compact menu button shows at most this much of its text
SIDEBAR_KEY = "sidebar_visible"


def fit_rect(wanted: QSize, available: QRect, minimum: QSize = MIN_SIZE) -> QRect:
    """`wanted`, shrunk to fit `available` (the screen less its panels), centred on it.

    Never below `minimum` unless the screen itself is smaller."""
    width = min(max(wanted.width(), min(minimum.width(), available.width())), available.width())
    height = min(
        max(wanted.height(), min(minimum.height(), available.height())), available.height()
    )
    left = available.x() + (available.width() - width) // 2
    top = available.y() + (available.height() - height) // 2
    return QRect(left, top, width, height)


def clamp_rect(current: QRect, available: QRect) -> QRect:
    """A restored geometry made to fit on `available` (the screen may have shrunk since)."""
    if available.contains(current):
        return current
    fitted = fit_rect(current.size(), available)
    left = min(max(current.x(), available.x()), available.right() - fitted.width() + 1)
    top = min(max(current.y(), available.y()), available.bottom() - fitted.height() + 1)
    return QRect(left, top, fitted.width(), fitted.height())


def available_geometry(widget: QWidget) -> QRect:
    screen = widget.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry()


def minimum_for(available: QRect) -> QSize:
    return QSize(
        min(MIN_SIZE.width(), available.width()), min(MIN_SIZE.height(), available.height())
    )


class MenuButton(QToolButton):
    """A compact stand-in for a wide header control: a short text, its menu on click."""

    def __init__(self, object_name: str, accessible: str) -> None:
        super().__init__()
        self.setObjectName(object_name)
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.setAccessibleName(accessible)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def set_short_text(self, text: str) -> None:
        font = QFont(self.font())
        font.setBold(True)  # as the style sheet draws it
        shown = QFontMetrics(font).elidedText(text, Qt.TextElideMode.ElideMiddle, COMPACT_TEXT_PX)
        self.setText(f"{shown} ▾")
        self.setToolTip(text)


class CompactBar(QObject):
    """Swaps the header's model picker and folder button for two compact menus when the
    header is too narrow for them, and back when it widens again."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.compact = False
        header = window.title.parentWidget()
        assert header is not None
        self.header = header
        layout = header.layout()
        assert layout is not None
        self.model_button = MenuButton("CompactModel", _("Modèle"))
        self.model_menu = QMenu(self.model_button)
        self.model_menu.aboutToShow.connect(self._fill_models)
        self.model_button.setMenu(self.model_menu)
        self.folder_button = MenuButton("CompactFolder", _("Dossier de travail"))
        self.folder_button.setMenu(window.workspace_picker.menu())  # same recent folders
        index = layout.indexOf(window.model_picker)
        assert hasattr(layout, "insertWidget")
        layout.insertWidget(index + 1, self.model_button)
        layout.insertWidget(layout.indexOf(window.workspace_picker) + 1, self.folder_button)
        self.model_button.hide()
        self.folder_button.hide()
        # Tab reaches each where the control it stands for would be
        QWidget.setTabOrder(window.model_picker, self.model_button)
        QWidget.setTabOrder(window.workspace_picker, self.folder_button)
        self._wide = (
            window.model_caption,
            window.model_picker,
            window.model_marks,
            window.workspace_picker,
        )
        window.model_picker.currentIndexChanged.connect(lambda _i: self._texts())
        window.workspace_picker.changed.connect(lambda _f: self._texts())
        margins = layout.contentsMargins()
        self._margins = (margins.left(), margins.top(), margins.right(), margins.bottom())
        self._spacing = layout.spacing()
        self._title_min = window.title.minimumWidth()
        header.installEventFilter(self)
        self._texts()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.header and event.type() == QEvent.Type.Resize:
            self.update_mode()
        return False

    def full_width(self) -> int:
        """What the header needs to show every control at its full size."""
        layout = self.header.layout()
        assert layout is not None
        widgets = [self.window.title, *self._wide, *self._always()]
        shown = [w for w in widgets if w is not self.window.model_marks or self._marks_wanted()]
        needed = sum(
            max(w.minimumWidth(), w.sizeHint().width()) if w is not self.window.title else 160
            for w in shown
        )
        left, _top, right, _bottom = self._margins
        return needed + self._spacing * len(shown) + left + right

    def _always(self) -> list[QWidget]:
        return [self.window.problems_button, self.window.settings_button]

    def _marks_wanted(self) -> bool:
        return bool(self.window.model_marks.marks)

    def update_mode(self) -> None:
        compact = self.header.width() < self.full_width()
        if compact == self.compact:
            self._fit_sidebar()
            return
        self.compact = compact
        marks = self.window.model_marks
        marks.suppressed = compact
        for widget in self._wide:
            widget.setVisible(not compact and (widget is not marks or bool(marks.marks)))
        self.model_button.setVisible(compact)
        self.folder_button.setVisible(compact)
        layout = self.header.layout()
        assert layout is not None
        layout.setContentsMargins(*(COMPACT_MARGINS if compact else self._margins))
        layout.setSpacing(6 if compact else self._spacing)
        self.window.title.setMinimumWidth(60 if compact else self._title_min)
        self._texts()
        self._fit_sidebar()

    def _fit_sidebar(self) -> None:
        """The sidebar gives up width (down to its minimum) when the top bar lacks it."""
        layout = self.header.layout()
        assert layout is not None
        lacking = layout.minimumSize().width() - self.header.width()
        splitter = self.window.splitter
        side, rest = splitter.sizes()
        room = side - self.window.conversations.minimumWidth()
        if lacking > 0 and room > 0 and not self.window.conversations.isHidden():
            give = min(lacking, room)
            splitter.setSizes([side - give, rest + give])

    def _texts(self) -> None:
        picker = self.window.model_picker
        self.model_button.set_short_text(picker.currentText() or _("Aucun modèle"))
        self.model_button.setEnabled(picker.isEnabled())
        folder = self.window.workspace_picker
        name = Path(folder.folder).name or folder.folder if folder.folder else _("Aucun dossier")
        self.folder_button.set_short_text(name)  # the folder, without "Dossier : "
        self.folder_button.setToolTip(folder.toolTip())

    def _fill_models(self) -> None:
        picker = self.window.model_picker
        menu = self.model_menu
        menu.clear()
        for row in range(picker.count()):
            action = menu.addAction(picker.itemText(row))
            action.setCheckable(True)
            action.setChecked(row == picker.currentIndex())
            action.triggered.connect(lambda _checked=False, r=row: picker.setCurrentIndex(r))


class Sidebar(QObject):
    """The conversation list shown or hidden (Ctrl+B); the choice is kept between runs."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        visible = window.runtime.settings.ui.get(SIDEBAR_KEY, True)
        window.conversations.setVisible(visible is not False)
        new_button = window.conversations.new_button
        self._new_text = new_button.text()
        self._short_text = _("+  Nouvelle")
        new_button.setAccessibleName(_("Nouvelle conversation"))
        new_button.setToolTip(_("Nouvelle conversation (Ctrl+N)"))
        window.conversations.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window.conversations and event.type() == QEvent.Type.Resize:
            self._fit_new_button()
        return False

    def _fit_new_button(self) -> None:
        """A narrow list says "+ Nouvelle" rather than a cut "Nouvelle conversatic"."""
        new_button = self.window.conversations.new_button
        metrics = QFontMetrics(new_button.font())
        # the list's width less its margins, the button's padding and outline
        room = self.window.conversations.width() - 28 - 34
        fits = metrics.horizontalAdvance(self._new_text) <= room
        new_button.setText(self._new_text if fits else self._short_text)
        tagline = self.window.conversations.findChild(QLabel, "BrandTagline")
        if tagline is not None:  # a cut "MODÈLES L" says less than nothing
            tagline.setVisible(fits)

    @property
    def visible(self) -> bool:
        return not self.window.conversations.isHidden()

    def toggle(self) -> None:
        self.set_visible(not self.visible)

    def set_visible(self, visible: bool) -> None:
        conversations = self.window.conversations
        focus = QApplication.focusWidget()
        if not visible and focus is not None and conversations.isAncestorOf(focus):
            self.window.composer.input.setFocus()  # focus must not vanish with the list
        conversations.setVisible(visible)
        self.window.runtime.settings.ui[SIDEBAR_KEY] = visible

    def show_for_search(self) -> None:
        """Ctrl+K: the search field, even when the list was hidden."""
        if not self.visible:
            self.set_visible(True)
        search = self.window.conversations.search
        search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        search.selectAll()


def place_window(window: QWidget, ui: dict[str, object]) -> None:
    """The saved geometry, else the first size; either way on the screen as it is now."""
    available = available_geometry(window)
    window.setMinimumSize(minimum_for(available))
    extra = _frame_extra(window)
    geometry = ui.get("geometry")
    if isinstance(geometry, str) and window.restoreGeometry(
        QByteArray.fromBase64(geometry.encode())
    ):
        if not window.isMaximized() and not window.isFullScreen():
            framed = window.geometry().adjusted(0, -extra.height(), extra.width(), 0)
            _set_frame(window, clamp_rect(framed, available), extra)
        return
    wanted = QSize(FIRST_SIZE.width() + extra.width(), FIRST_SIZE.height() + extra.height())
    _set_frame(window, fit_rect(wanted, available), extra)


def _frame_extra(window: QWidget) -> QSize:
    """What the window manager's frame adds around the window (a guess before it is shown)."""
    frame, inner = window.frameGeometry(), window.geometry()
    extra = QSize(frame.width() - inner.width(), frame.height() - inner.height())
    if not window.isVisible() and extra.height() <= 0:
        return QSize(0, FRAME_ALLOWANCE_PX)
    return extra


def _set_frame(window: QWidget, frame: QRect, extra: QSize) -> None:
    """Place the window so that its frame (title bar included) is `frame`."""
    window.resize(
        max(frame.width() - extra.width(), window.minimumWidth()),
        max(frame.height() - extra.height(), window.minimumHeight()),
    )
    window.move(frame.topLeft())
