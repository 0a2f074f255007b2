"""The window's keyboard: shortcuts, typing that lands in the composer, named icon buttons."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QAbstractButton, QApplication, QWidget

from loki_desktop.core.i18n import _
from loki_desktop.ui.qt_helpers import set_state

if TYPE_CHECKING:
    from PySide6.QtWidgets import QStackedWidget

    from loki_desktop.ui.chat.composer import Composer
    from loki_desktop.ui.chat.conversations import ConversationList
    from loki_desktop.ui.sessions import Sessions
    from loki_desktop.ui.window.backend_status import ModelPicker
    from loki_desktop.ui.window.settings_opener import SettingsOpener
    from loki_desktop.ui.window.sidebar import Sidebar
    from loki_desktop.ui.workspace.picker import WorkspacePicker


class ShortcutHost(Protocol):
    """What the shortcuts reach of the window (the main window is one): a part never
    imports the whole that holds it."""

    @property
    def sidebar(self) -> Sidebar: ...
    @property
    def settings_opener(self) -> SettingsOpener: ...
    @property
    def sessions(self) -> Sessions: ...
    @property
    def settings_button(self) -> QAbstractButton: ...
    @property
    def conversations(self) -> ConversationList: ...
    @property
    def composer(self) -> Composer: ...
    @property
    def model_picker(self) -> ModelPicker: ...
    @property
    def workspace_picker(self) -> WorkspacePicker: ...
    @property
    def stack(self) -> QStackedWidget: ...
    def export_conversation(self, conversation_id: str | None = None) -> object: ...


FOCUS_EVENTS = (QEvent.Type.FocusIn, QEvent.Type.FocusOut)


def install_shortcuts(window: ShortcutHost, parent: QWidget) -> list[QShortcut]:
    """Window-wide shortcuts (they work from any control of the window)."""
    bindings = (
        ("Ctrl+K", window.sidebar.show_for_search),
        ("Ctrl+L", lambda: focus_composer(window)),
        ("Ctrl+B", window.sidebar.toggle),
        ("Ctrl+,", window.settings_opener.open),
        (QKeySequence(Qt.Key.Key_Escape), lambda: escape(window)),
        (QKeySequence.StandardKey.New, window.sessions.new_conversation),
        ("Ctrl+Shift+E", window.export_conversation),
    )
    made = []
    for keys, slot in bindings:
        shortcut = QShortcut(QKeySequence(keys), parent, slot)
        shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        made.append(shortcut)
    window.settings_button.setToolTip(_("Réglages (Ctrl+,)"))
    window.conversations.search.setToolTip(_("Rechercher (Ctrl+K)"))
    window.composer.input.setAccessibleName(_("Message à Loki"))
    window.model_picker.setAccessibleName(_("Modèle"))
    window.workspace_picker.setAccessibleName(_("Dossier de travail"))
    window.conversations.list.setAccessibleName(_("Conversations"))
    TypingToComposer(window, parent)
    return made


def escape(window: ShortcutHost) -> None:
    """Échap anywhere: drop an edit under way (nothing streams then), else stop the turn."""
    if window.composer.editing and not window.composer.busy:
        window.composer.escape()
    else:
        window.sessions.stop_current()


def focus_composer(window: ShortcutHost) -> None:
    window.composer.input.setFocus(Qt.FocusReason.ShortcutFocusReason)


def is_typing(event: QKeyEvent) -> bool:
    """Text being typed (a letter, a digit, a space), not a shortcut or a navigation key."""
    shortcut = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
    text = event.text()
    return bool(text) and text.isprintable() and not event.modifiers() & shortcut


class TypingToComposer(QObject):
    """Text typed while the focus is somewhere in the chat (a message, a card's button) goes
    to the composer, as in a messaging app; and icon-only buttons get a spoken name."""

    def __init__(self, window: ShortcutHost, parent: QObject) -> None:
        super().__init__(parent)
        self.window = window
        app = QCoreApplication.instance()
        assert app is not None
        app.installEventFilter(self)  # removed by Qt when this object is deleted

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Polish and isinstance(watched, QAbstractButton):
            name_icon_button(watched)
        elif kind in FOCUS_EVENTS and watched is self.window.composer.input:
            # the text box has no outline of its own: its frame shows the focus
            set_state(self.window.composer, "focus", kind == QEvent.Type.FocusIn)
        elif (
            kind == QEvent.Type.KeyPress
            and isinstance(watched, QWidget)
            and isinstance(event, QKeyEvent)
            and is_typing(event)
            and not (isinstance(watched, QAbstractButton) and event.key() == Qt.Key.Key_Space)
            and self._in_chat(watched)
        ):
            target = self.window.composer.input
            target.setFocus(Qt.FocusReason.OtherFocusReason)
            QCoreApplication.sendEvent(target, event)
            return True
        return False

    def _in_chat(self, widget: QWidget) -> bool:
        if widget is not QApplication.focusWidget():
            return False  # the event is on its way up from a child: seen once, at the focus
        stack = self.window.stack
        return widget is stack or stack.isAncestorOf(widget)


def name_icon_button(widget: QAbstractButton) -> None:
    """A button showing a symbol ("×", "✕") is read out by its tooltip."""
    if widget.accessibleName():
        return
    text = widget.text().replace("&", "").strip()
    if not any(ch.isalnum() for ch in text) and widget.toolTip():
        widget.setAccessibleName(widget.toolTip())
