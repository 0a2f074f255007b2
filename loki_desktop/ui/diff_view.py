"""A unified diff on screen: coloured lines, old and new line numbers, folded when long."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QRect, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QWheelEvent,
)
from PySide6.QtWidgets import QFrame, QPlainTextEdit, QWidget

from loki_desktop.ui.code_colours import Piece
from loki_desktop.ui.diff_rows import DiffRow
from loki_desktop.ui.theme import Palette

GUTTER_PAD = 8  # pixels around each number column


def row_colours(palette: Palette) -> dict[str, tuple[str | None, str]]:
    """(background, text colour) per row kind, from the theme's palette."""
    return {
        "added": (palette.ok_soft, palette.ink),
        "removed": (palette.danger_soft, palette.ink),
        # the dark sidebar is the code background itself: hunks take the code head there
        "hunk": (palette.code_head if palette.dark else palette.sidebar, palette.muted),
        "note": (None, palette.muted),
        "context": (None, palette.ink),
    }


class DiffText(QPlainTextEdit):
    """Read-only diff lines with a gutter of old/new numbers; as tall as its rows (the chat
    scrolls, not this), scrolled sideways for long lines."""

    def __init__(self, palette: Palette, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("DiffText")
        self.palette_ = palette
        self.setReadOnly(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.rows: list[DiffRow] = []
        self._columns = ["old", "new"]  # the line numbers shown left of the lines
        self.gutter = _Gutter(self)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setStyleSheet(
            f"QPlainTextEdit#DiffText {{ background: {palette.code_bg}; color: {palette.ink}; }}"
        )
        self.updateRequest.connect(lambda *_args: self.gutter.update())
        self.horizontalScrollBar().rangeChanged.connect(self._fit)

    def set_rows(
        self, rows: Sequence[DiffRow], pieces: Sequence[Sequence[Piece]] | None = None
    ) -> None:
        """Show these rows (replacing any shown), one block each, coloured by kind; with
        `pieces` (a new file's syntax colours, one list a row) each piece its own colour."""
        self.rows = list(rows)
        self._columns = [
            name for name in ("old", "new") if any(getattr(r, name) for r in self.rows)
        ] or ["new"]
        colours = row_colours(self.palette_)
        document = self.document()
        document.clear()
        cursor = QTextCursor(document)
        cursor.beginEditBlock()
        for index, row in enumerate(self.rows):
            background, ink = colours[row.kind]
            block = QTextBlockFormat()
            if background is not None:
                block.setBackground(QColor(background))
            char = QTextCharFormat()
            char.setForeground(QColor(ink))
            if index == 0:
                cursor.setBlockFormat(block)
                cursor.setCharFormat(char)
            else:
                cursor.insertBlock(block, char)
            if pieces is None or index >= len(pieces):
                cursor.insertText(row.text)
                continue
            for text, colour, bold in pieces[index]:
                cursor.insertText(text, _piece_format(char, colour, bold))
        cursor.endEditBlock()
        self._place_gutter()
        self._fit()

    def colour_rows(self, first: int, pieces: Sequence[Sequence[Piece]]) -> None:
        """Colour rows already shown (`first` on), piece by piece: a new file's colours that
        were lexed after its lines went on screen."""
        document = self.document()
        cursor = QTextCursor(document)
        plain = QTextCharFormat()
        plain.setForeground(QColor(self.palette_.ink))
        cursor.beginEditBlock()
        for offset, line in enumerate(pieces):
            block = document.findBlockByNumber(first + offset)
            if not block.isValid():
                break
            position = block.position()
            for text, colour, bold in line:
                length = len(text.encode("utf-16-le")) // 2  # Qt counts UTF-16 units
                cursor.setPosition(position)
                cursor.setPosition(position + length, QTextCursor.MoveMode.KeepAnchor)
                cursor.setCharFormat(_piece_format(plain, colour, bold))
                position += length
        cursor.endEditBlock()

    def column_width(self) -> int:
        digits = len(str(max((r.old or r.new or 0 for r in self.rows), default=0) or 1))
        return self.fontMetrics().horizontalAdvance("9") * max(digits, 2) + 2 * GUTTER_PAD

    def gutter_width(self) -> int:
        return self.column_width() * len(self._columns)

    def _place_gutter(self) -> None:
        width = self.gutter_width()
        self.setViewportMargins(width, 0, 0, 0)
        rect = self.contentsRect()
        self.gutter.setGeometry(QRect(rect.left(), rect.top(), width, rect.height()))

    def _fit(self, *_args: object) -> None:
        """As tall as the rows (and the sideways scroll bar when lines are long)."""
        line = self.fontMetrics().lineSpacing()
        block = self.document().firstBlock()
        if block.isValid():
            line = max(line, round(self.blockBoundingRect(block).height()))
        height = line * max(1, len(self.rows)) + 2 * round(self.document().documentMargin())
        bar = self.horizontalScrollBar()
        if bar.maximum() > 0:
            height += bar.sizeHint().height()
        height += 2 * self.frameWidth()
        if height != self.height():
            self.setFixedHeight(height)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place_gutter()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # the style sheet's font, once polished
            self._place_gutter()
            self._fit()

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.angleDelta().x() != 0:  # sideways: long lines
            super().wheelEvent(event)
        else:
            event.ignore()  # the chat's scroll area scrolls

    def paint_gutter(self, event: QPaintEvent) -> None:
        painter = QPainter(self.gutter)
        painter.setFont(self.font())
        p = self.palette_
        painter.fillRect(event.rect(), QColor(p.code_bg))
        painter.setPen(QColor(p.muted))
        column = self.column_width()
        height = self.fontMetrics().height()
        block = self.firstVisibleBlock()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        while block.isValid() and top <= event.rect().bottom():
            bottom = top + round(self.blockBoundingRect(block).height())
            number = block.blockNumber()
            if number < len(self.rows):
                row = self.rows[number]
                right = Qt.AlignmentFlag.AlignRight
                for place, name in enumerate(self._columns):
                    x, value = place * column, getattr(row, name)
                    if value is not None:
                        box = QRect(x, top, column - GUTTER_PAD, height)
                        painter.drawText(box, right, str(value))
            block = block.next()
            top = bottom
        painter.setPen(QColor(p.ink))
        edge = self.gutter_width() - 1
        painter.drawLine(edge, event.rect().top(), edge, event.rect().bottom())
        painter.end()


def _piece_format(base: QTextCharFormat, colour: str | None, bold: bool) -> QTextCharFormat:
    piece = QTextCharFormat(base)
    if colour is not None:
        piece.setForeground(QColor(colour))
    if bold:
        piece.setFontWeight(QFont.Weight.Bold)
    return piece


class _Gutter(QWidget):
    """The two number columns left of the lines (painted by the DiffText)."""

    def __init__(self, view: DiffText) -> None:
        super().__init__(view)
        self.view = view

    def sizeHint(self) -> QSize:
        return QSize(self.view.gutter_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self.view.paint_gutter(event)
