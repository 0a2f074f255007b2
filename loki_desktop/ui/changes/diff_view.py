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
    QSyntaxHighlighter,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QWheelEvent,
)
from PySide6.QtWidgets import QFrame, QPlainTextEdit, QWidget

from loki_desktop.ui.changes.diff_rows import DiffRow
from loki_desktop.ui.text.code_colours import Piece
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
        self._syntax: _Syntax | None = None  # a new file's syntax colours, when it has some
        self._largest = 0  # the largest line number shown (the gutter's width)
        self.gutter = _Gutter(self)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        # its background and ink come from the application's style sheet (#DiffText): a
        # style sheet of its own gave every diff its own QStyleSheetStyle and a repolish of
        # its children (C heap for each card built), and kept the theme it was made under
        self.updateRequest.connect(lambda *_args: self.gutter.update())
        self.horizontalScrollBar().rangeChanged.connect(self._fit)

    def set_rows(
        self, rows: Sequence[DiffRow], pieces: Sequence[Sequence[Piece]] | None = None
    ) -> None:
        """Show these rows (replacing any shown), one block each, coloured by kind. `pieces`
        (a new file's syntax colours, one list a row, which may grow later: see
        `colour_rows`) colours each row that has them, piece by piece."""
        self.rows = list(rows)
        self._columns = [
            name for name in ("old", "new") if any(getattr(r, name) for r in self.rows)
        ] or ["new"]
        self._largest = max((r.old or r.new or 0 for r in self.rows), default=0)
        if pieces is not None and self._syntax is None:
            self._syntax = _Syntax(self.document(), self.palette_.ink)
        if self._syntax is not None:
            self._syntax.pieces = pieces if pieces is not None else ()
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
            cursor.insertText(row.text)
        cursor.endEditBlock()
        self._place_gutter()
        self._fit()

    def colour_rows(self, first: int, count: int) -> None:
        """Colour `count` rows from `first` on, whose pieces arrived after they were shown."""
        if self._syntax is None:
            return
        block = self.document().findBlockByNumber(first)
        for _ in range(count):
            if not block.isValid():
                break
            self._syntax.rehighlightBlock(block)
            block = block.next()

    def column_width(self) -> int:
        digits = len(str(self._largest or 1))
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
        # only the rows on screen: the diff is as tall as its rows inside the chat's scroll
        # area, and Qt hands the whole gutter to repaint after each change of the text
        area = event.rect().intersected(self.gutter.visibleRegion().boundingRect())
        painter = QPainter(self.gutter)
        painter.setFont(self.font())
        p = self.palette_
        painter.fillRect(area, QColor(p.code_bg))
        painter.setPen(QColor(p.muted))
        column = self.column_width()
        height = self.fontMetrics().height()
        block = self.firstVisibleBlock()
        offset = self.contentOffset()
        top = round(self.blockBoundingGeometry(block).translated(offset).top())
        line = max(1, round(self.blockBoundingRect(block).height()))
        if block.isValid() and area.top() > top + line:  # rows of one height: jump there
            block = self.document().findBlockByNumber(
                block.blockNumber() + (area.top() - top) // line
            )
            top = round(self.blockBoundingGeometry(block).translated(offset).top())
        right = Qt.AlignmentFlag.AlignRight
        while block.isValid() and top <= area.bottom():
            number = block.blockNumber()
            if number < len(self.rows):
                row = self.rows[number]
                for place, name in enumerate(self._columns):
                    x, value = place * column, getattr(row, name)
                    if value is not None:
                        painter.drawText(
                            QRect(x, top, column - GUTTER_PAD, height), right, str(value)
                        )
            block = block.next()
            top += line
        painter.setPen(QColor(p.ink))
        edge = self.gutter_width() - 1
        painter.drawLine(edge, area.top(), edge, area.bottom())
        painter.end()


class _Syntax(QSyntaxHighlighter):
    """Lays the lexed colours over a new file's lines (the layout's formats, not the text's):
    a line's colours cost one block's layout, whenever they arrive."""

    def __init__(self, document: QTextDocument, ink: str) -> None:
        super().__init__(document)
        self.pieces: Sequence[Sequence[Piece]] = ()
        self._formats: dict[tuple[str | None, bool], QTextCharFormat] = {}
        self._ink = ink

    def highlightBlock(self, text: str) -> None:
        number = self.currentBlock().blockNumber()
        if number >= len(self.pieces):
            return
        position = 0
        for piece, colour, bold in self.pieces[number]:
            length = len(piece.encode("utf-16-le")) // 2  # Qt counts UTF-16 units
            if colour is not None or bold:
                self.setFormat(position, length, self._format(colour, bold))
            position += length

    def _format(self, colour: str | None, bold: bool) -> QTextCharFormat:
        found = self._formats.get((colour, bold))
        if found is None:
            found = QTextCharFormat()
            found.setForeground(QColor(colour or self._ink))
            if bold:
                found.setFontWeight(QFont.Weight.Bold)
            self._formats[(colour, bold)] = found
        return found


class _Gutter(QWidget):
    """The two number columns left of the lines (painted by the DiffText)."""

    def __init__(self, view: DiffText) -> None:
        super().__init__(view)
        self.view = view

    def sizeHint(self) -> QSize:
        return QSize(self.view.gutter_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self.view.paint_gutter(event)
