"""The window's keyboard: shortcuts, typing that lands in the composer, named icon buttons."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QAbstractButton, QApplication, QWidget

from loki_desktop.core.i18n import _
from loki_desktop.ui.qt_helpers import set_state

if TYPE_CHECKING:
    from loki_desktop.ui.main_window import MainWindow


FOCUS_EVENTS = (QEvent.Type.FocusIn, QEvent.Type.FocusOut)


def install_shortcuts(window: MainWindow) -> list[QShortcut]:
    """Window-wide shortcuts (they work from any control of the window)."""
    bindings = (
        ("Ctrl+K", window.sidebar.show_for_search),
        ("Ctrl+L", lambda: focus_composer(window)),
        ("Ctrl+B", window.sidebar.toggle),
        ("Ctrl+,", window.settings_opener.open),
        (QKeySequence(Qt.Key.Key_Escape), window.sessions.stop_current),
        (QKeySequence.StandardKey.New, window.sessions.new_conversation),
    )
    made = []
    for keys, slot in bindings:
        shortcut = QShortcut(QKeySequence(keys), window, slot)
        shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        made.append(shortcut)
    window.settings_button.setToolTip(_("Réglages (Ctrl+,)"))
    window.conversations.search.setToolTip(_("Rechercher (Ctrl+K)"))
    window.composer.input.setAccessibleName(_("Message à Loki"))
    window.model_picker.setAccessibleName(_("Modèle"))
    window.workspace_picker.setAccessibleName(_("Dossier de travail"))
    window.conversations.list.setAccessibleName(_("Conversations"))
    TypingToComposer(window)
    return made


def focus_composer(window: MainWindow) -> None:
    window.composer.input.setFocus(Qt.FocusReason.ShortcutFocusReason)


def is_typing(event: QKeyEvent) -> bool:
    """Text being typed (a letter, a digit, a space), not a shortcut or a navigation key."""
    shortcut = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
    text = event.text()
    return bool(text) and text.isprintable() and not event.modifiers() & shortcut


class TypingToComposer(QObject):
    """Text typed while the focus is somewhere in the chat (a message, a card's button) goes
    to the composer, as in a messaging app; and icon-only buttons get a spoken name."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
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
