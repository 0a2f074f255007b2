"""The model's reasoning in the chat: a *Réflexion* block, live while it runs, folded after."""

from __future__ import annotations

import math
import time

from PySide6.QtCore import QTimer
from PySide6.QtGui import QFontMetrics, QShowEvent, QTextCursor, QWheelEvent
from PySide6.QtWidgets import QFrame, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from loki_desktop.core.i18n import _
from loki_desktop.ui.chat.markdown_view import FLUSH_INTERVAL_MS
from loki_desktop.ui.qt_helpers import set_state

TICK_MS = 1000  # the "réfléchit… 12 s" counter moves once a second
MAX_LINES = 12  # taller reasoning scrolls inside the block
# While it streams, the block shows the end of the reasoning only: past LIVE_CHARS the
# start is cut back to LIVE_KEEP characters, so a write never lays out more than that
# (a 600,000-character paragraph took 550 ms a write). Opened once done, it shows it all.
LIVE_CHARS = 8_000
LIVE_KEEP = 4_000


def format_duration(seconds: float) -> str:
    """12 s, 1 min 05 s: how long the model thought (whole seconds, at least 1)."""
    whole = max(1, math.floor(seconds + 0.5))
    if whole < 60:
        return f"{whole} s"
    return f"{whole // 60} min {whole % 60:02d} s"


class ThinkingText(QPlainTextEdit):
    """The reasoning itself: plain text, as tall as its lines up to MAX_LINES."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ThinkingText")
        self.setReadOnly(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.document().documentLayout().documentSizeChanged.connect(self._fit)
        self._fit()

    def _fit(self, *_args: object) -> None:
        # a plain-text layout measures its size in lines: no full layout pass per update
        lines = max(1, min(MAX_LINES, math.ceil(self.document().size().height())))
        chrome = self.height() - self.viewport().height()  # frame, style-sheet padding
        margins = 2 * self.document().documentMargin()
        # +4: the editor keeps a pixel below the last line before it calls it visible
        height = QFontMetrics(self.font()).lineSpacing() * lines + math.ceil(margins) + chrome + 4
        if height != self.height():
            self.setFixedHeight(height)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._fit()  # the style sheet's font and padding are known from now on

    def wheelEvent(self, event: QWheelEvent) -> None:
        bar = self.verticalScrollBar()
        if bar.maximum() == 0:
            event.ignore()  # nothing to scroll here: the chat scrolls
            return
        super().wheelEvent(event)


class ThinkingBlock(QFrame):
    """Reasoning from the Thinking events: `append` while it streams, `finish` when the
    answer (or a tool call) starts. Open while it runs, folded once done, its duration kept.

    Chunks are buffered and written at most ~30 times a second, at the end of the text only,
    so a chunk costs the same however long the reasoning already is; nothing is written
    while the block is folded.
    """

    def __init__(
        self, text: str = "", seconds: float | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("ThinkingBlock")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.toggle = QPushButton()
        self.toggle.setObjectName("ThinkingToggle")
        self.toggle.setCheckable(True)
        layout.addWidget(self.toggle)
        self.body = ThinkingText(self)
        self.body.hide()
        layout.addWidget(self.body)
        self._parts: list[str] = [text] if text else []
        self._pending: list[str] = [text] if text else []
        self._started: float | None = None
        self.seconds = seconds
        self.running = False
        self._trimmed = False  # the body holds the end of the text only
        self.repaints = 0  # writes into the body, for tests and measurements
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(FLUSH_INTERVAL_MS)
        self._flush_timer.timeout.connect(self.flush)
        self._tick = QTimer(self)
        self._tick.setInterval(TICK_MS)
        self._tick.timeout.connect(self._show_title)
        self.toggle.toggled.connect(self._set_open)
        self._show_title()

    # --- content ----------------------------------------------------------------------

    def text(self) -> str:
        return "".join(self._parts)

    @property
    def is_open(self) -> bool:
        return self.toggle.isChecked()

    def start(self) -> None:
        """The first chunk arrived: count the seconds, show the reasoning as it comes."""
        if self.running:
            return
        self.running = True
        self._started = time.monotonic()
        self._tick.start()
        set_state(self.toggle, "running", True)
        self.toggle.setChecked(True)
        self._show_title()

    def append(self, text: str) -> None:
        if not self.running:
            self.start()
        self._parts.append(text)
        self._pending.append(text)
        if self.is_open and not self._flush_timer.isActive():
            self._flush_timer.start()

    def finish(self) -> None:
        """The answer starts (or the turn ends): fold, stop counting, keep the duration."""
        if not self.running:
            return
        self.running = False
        self._tick.stop()
        if self._started is not None:
            self.seconds = time.monotonic() - self._started
        set_state(self.toggle, "running", False)
        self.toggle.setChecked(False)
        self._show_title()

    def flush(self) -> None:
        if not self._pending or not self.is_open:
            return
        chunk = "".join(self._pending)
        self._pending.clear()
        bar = self.body.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() - 4
        document = self.body.document()
        cursor = QTextCursor(document)
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(chunk)
        if self.running and document.characterCount() > LIVE_CHARS:
            cursor.setPosition(0)
            cursor.setPosition(
                document.characterCount() - LIVE_KEEP, QTextCursor.MoveMode.KeepAnchor
            )
            cursor.insertText("…")
            self._trimmed = True
        self.repaints += 1
        if at_end:
            bar.setValue(bar.maximum())  # follow the reasoning unless scrolled back

    # --- looks ------------------------------------------------------------------------

    def title(self) -> str:
        arrow = "▾" if self.is_open else "▸"
        if self.running:
            elapsed = time.monotonic() - self._started if self._started is not None else 0.0
            return _("{arrow} Réflexion — réfléchit… {time}").format(
                arrow=arrow, time=format_duration(elapsed)
            )
        if self.seconds is not None:
            return _("{arrow} Réflexion — {time}").format(
                arrow=arrow, time=format_duration(self.seconds)
            )
        return _("{arrow} Réflexion").format(arrow=arrow)

    def _show_title(self) -> None:
        self.toggle.setText(self.title())

    def _set_open(self, opened: bool) -> None:
        self.body.setVisible(opened)
        self._show_title()
        if opened and self._trimmed and not self.running:
            # done: the whole reasoning, laid out once
            self._pending.clear()
            self.body.setPlainText(self.text())
            self._trimmed = False
        elif opened:
            self.flush()
