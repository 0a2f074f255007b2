"""The composer: Enter sends, Shift+Enter breaks the line, the button becomes Stop while busy."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontMetrics, QKeyEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from loki_desktop.ui.qt_helpers import label, set_state

MAX_LINES = 8


class ComposerInput(QPlainTextEdit):
    submitted = Signal()
    escape_pressed = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.insertPlainText("\n")
            else:
                self.submitted.emit()
            return
        if event.key() == Qt.Key.Key_Escape:
            self.escape_pressed.emit()
            return
        super().keyPressEvent(event)


class Composer(QFrame):
    """Where the user writes. Emits `send_requested(text)` and `stop_requested`."""

    send_requested = Signal(str)
    stop_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Composer")
        self.busy = False
        outer = QVBoxLayout(self)
        outer.setContentsMargins(10, 8, 10, 6)
        outer.setSpacing(4)
        row = QHBoxLayout()
        row.setSpacing(10)
        self.input = ComposerInput()
        self.input.setObjectName("ComposerInput")
        self.input.setPlaceholderText(self.tr("Écrivez à Loki…"))
        self.input.setTabChangesFocus(True)
        row.addWidget(self.input, 1)
        self.button = QPushButton(self.tr("Envoyer"))
        self.button.setObjectName("SendButton")
        self.button.setProperty("mode", "send")
        row.addWidget(self.button, 0, Qt.AlignmentFlag.AlignBottom)
        outer.addLayout(row)
        self.hint = label(
            self.tr("Entrée : envoyer · Maj+Entrée : nouvelle ligne · Échap : arrêter"),
            "ComposerHint",
        )
        outer.addWidget(self.hint)
        self.input.submitted.connect(self.submit)
        self.input.escape_pressed.connect(self._escape)
        self.input.textChanged.connect(self._fit_height)
        self.button.clicked.connect(self._on_button)
        self._fit_height()

    def text(self) -> str:
        return self.input.toPlainText()

    def set_text(self, text: str) -> None:
        self.input.setPlainText(text)

    def set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.button.setText(self.tr("Arrêter") if busy else self.tr("Envoyer"))
        set_state(self.button, "mode", "stop" if busy else "send")

    def submit(self) -> None:
        text = self.input.toPlainText().strip()
        if not text or self.busy:
            return
        self.input.clear()
        self.send_requested.emit(text)

    def _on_button(self) -> None:
        if self.busy:
            self.stop_requested.emit()
        else:
            self.submit()

    def _escape(self) -> None:
        if self.busy:
            self.stop_requested.emit()

    def _fit_height(self) -> None:
        lines = max(2, min(MAX_LINES, self.input.document().blockCount()))
        spacing = QFontMetrics(self.input.font()).lineSpacing()
        self.input.setFixedHeight(lines * spacing + 14)
