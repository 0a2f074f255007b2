"""A Markdown answer that streams: final blocks are rendered once, only the tail again.

Tokens are buffered (`append` costs a list append); at most ~30 times a second the
buffer is folded into the tail, the blocks `find_cut` declares final are rendered to
HTML once and kept, and only the tail is rendered again. The kept HTML is spread over
small documents ("chunks") of bounded size, so a repaint never re-lays out the whole
answer: the cost of a token does not grow with the length of the answer.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, QTimer, QUrl
from PySide6.QtGui import QCursor, QDesktopServices, QGuiApplication, QWheelEvent
from PySide6.QtWidgets import QFrame, QSizePolicy, QTextBrowser, QToolTip, QVBoxLayout, QWidget

from loki_desktop.core.i18n import _
from loki_desktop.ui.text.markdown_render import (
    MarkdownRenderer,
    RenderState,
    find_cut,
    split_blocks,
)

FLUSH_INTERVAL_MS = 33  # ~30 repaints a second at most
CHUNK_LIMIT = 3000  # Markdown characters kept in one document before a new one starts
# A chunk not made yet holds about this much space: a line of text per this many characters
GUESS_LINE_PX = 21
GUESS_LINE_CHARS = 90


class MessageText(QTextBrowser):
    """Read-only rich text whose height follows its content (no scroll bar of its own)."""

    def __init__(self, css: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("MessageText")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setOpenLinks(False)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.document().setDocumentMargin(2)
        if css:
            self.document().setDefaultStyleSheet(css)
        self.document().documentLayout().documentSizeChanged.connect(self._fit)
        self.setFixedHeight(self._content_height())

    def _content_height(self) -> int:
        return math.ceil(self.document().size().height()) + 2 * self.frameWidth()

    def _fit(self, *_args: object) -> None:
        height = self._content_height()
        if height != self.height():
            self.setFixedHeight(height)

    def loadResource(self, kind: int, url: QUrl | str) -> object:
        return None  # never load images or files named by a model

    def wheelEvent(self, event: QWheelEvent) -> None:
        event.ignore()  # the chat's scroll area scrolls, not this block


class MarkdownView(QWidget):
    """One answer's Markdown: `append` while streaming, `finish` at the end."""

    def __init__(self, renderer: MarkdownRenderer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.renderer = renderer
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(0)
        self._parts: list[str] = []  # the whole Markdown source, as it arrived
        self._pending: list[str] = []
        self._tail = ""
        self._state = RenderState()
        self._tail_state = RenderState()
        self._chunk_html: list[str] = []
        self._chunk_chars = 0
        self._waiting: list[str] = []  # the HTML of chunks not made yet, top first
        self._chunk = self._new_chunk()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(FLUSH_INTERVAL_MS)
        self._timer.timeout.connect(self.flush)
        self.renders = 0  # tail renders, for tests and measurements

    # --- content --------------------------------------------------------------------

    def set_markdown(self, text: str, *, defer: bool = False) -> None:
        """Show a finished answer at once. `defer`: a long one is cut at its blocks into
        chunks of about CHUNK_LIMIT characters and only the last is made now; the others
        wait as empty space of about their height until `build_previous` makes them (the
        chat view does as they near the screen: a 1,500-token answer laid out holds ~1.3 MB
        of C heap). They are rendered to HTML now, in order, so the copy links count right."""
        self._parts = [text]
        self._pending.clear()
        self._tail = ""
        self._state = RenderState()
        pieces = split_blocks(self.renderer.md, text, CHUNK_LIMIT) if defer else [text]
        htmls = [self.renderer.render(piece, self._state) for piece in pieces]
        self._chunk_html = [htmls[-1]]
        self._chunk.setHtml(htmls[-1])
        for piece, html in zip(pieces[:-1], htmls[:-1], strict=True):
            self._layout.insertSpacing(len(self._waiting), _guessed_height(piece))
            self._waiting.append(html)

    @property
    def waiting(self) -> int:
        """Chunks not made yet (`set_markdown(defer=True)`), above those shown."""
        return len(self._waiting)

    def waiting_bottom(self) -> int:
        """Where, in this widget, the space of the chunks not made yet ends."""
        item = self._layout.itemAt(len(self._waiting) - 1)
        return item.geometry().bottom() if item is not None else 0

    def top_chunk(self) -> QWidget:
        """The highest chunk made (the chunks still waiting are above it)."""
        item = self._layout.itemAt(len(self._waiting))
        widget = item.widget() if item is not None else None
        return widget if widget is not None else self

    def build_previous(self) -> None:
        """Make the lowest chunk still waiting (the one just above those shown)."""
        if not self._waiting:
            return
        html = self._waiting.pop()
        index = len(self._waiting)
        self._layout.takeAt(index)  # the space it held
        chunk = self._make_chunk()
        chunk.setHtml(html)
        self._layout.insertWidget(index, chunk)

    def append(self, text: str) -> None:
        self._parts.append(text)
        self._pending.append(text)
        if not self._timer.isActive():
            self._timer.start()

    def finish(self) -> None:
        """Render what is left and keep it: the answer is complete (or cut)."""
        self._timer.stop()
        self.flush()
        if self._tail:
            self._commit(self._tail)
            self._tail = ""
            self._chunk.setHtml("".join(self._chunk_html))

    def markdown(self) -> str:
        return "".join(self._parts)

    @property
    def tail_chars(self) -> int:
        """The Markdown rendered again at each repaint (tests, measurements): it stays small."""
        return len(self._tail)

    def code(self, index: int) -> str | None:
        tail = self._tail_state
        start = len(self._state.codes) - (1 if tail.continues_code else 0)
        if tail.codes and index >= start and index - start < len(tail.codes):
            return tail.codes[index - start]
        if 0 <= index < len(self._state.codes):
            return self._state.codes[index]
        return None

    def plain_text(self) -> str:
        """The rendered text, as a reader sees it (tests, copy of a selection); makes the
        chunks still waiting."""
        while self._waiting:
            self.build_previous()
        items = (self._layout.itemAt(index) for index in range(self._layout.count()))
        chunks = [item.widget() for item in items if item is not None]  # top to bottom
        return "\n".join(c.toPlainText() for c in chunks if isinstance(c, MessageText))

    # --- streaming ------------------------------------------------------------------

    def flush(self) -> None:
        if not self._pending:
            return
        self._tail += "".join(self._pending)
        self._pending.clear()
        for _attempt in range(4):  # a cut leaves a tail that cuts at most once more
            cut = find_cut(self.renderer.md, self._tail)
            if cut.length == 0:
                break
            self._state.table_goes_on = cut.continues_table
            self._commit(self._tail[: cut.length])
            self._tail = cut.carry + self._tail[cut.length :]
            self._state.continues_code = cut.continues_code
            self._state.continues_table = cut.continues_table
        self._render_tail()

    def _commit(self, markdown: str) -> None:
        self._chunk_html.append(self.renderer.render(markdown, self._state))
        self._state.continues_code = False
        self._state.continues_table = False
        self._state.table_goes_on = False
        self._chunk_chars += len(markdown)
        if self._chunk_chars >= CHUNK_LIMIT:
            self._chunk.setHtml("".join(self._chunk_html))
            self._chunk = self._new_chunk()
            self._chunk_html = []
            self._chunk_chars = 0

    def _render_tail(self) -> None:
        continues = self._state.continues_code and bool(self._state.codes)
        self._tail_state = RenderState(
            codes=[self._state.codes[-1]] if continues else [],
            continues_code=continues,
            continues_table=self._state.continues_table,
        )
        base = len(self._state.codes) - (1 if continues else 0)
        tail_html = self.renderer.render(self._tail, self._tail_state) if self._tail else ""
        if base:
            # the tail's copy links are numbered after the kept code blocks
            tail_html = _renumber_copy_links(tail_html, base)
        self._chunk.setHtml("".join(self._chunk_html) + tail_html)
        self.renders += 1

    # --- chunks and links -----------------------------------------------------------

    def _new_chunk(self) -> MessageText:
        chunk = self._make_chunk()
        self._layout.addWidget(chunk)
        return chunk

    def _make_chunk(self) -> MessageText:
        chunk = MessageText(self.renderer.document_css(), self)
        chunk.anchorClicked.connect(self._on_link)
        return chunk

    def _on_link(self, url: QUrl) -> None:
        if url.scheme() == "copy":
            index = int(url.path()) if url.path().isdigit() else -1
            code = self.code(index)
            if code is not None:
                QGuiApplication.clipboard().setText(code.rstrip("\n"))
                QToolTip.showText(QCursor.pos(), _("Code copié"), self)
        elif url.scheme() in ("http", "https", "mailto"):
            QDesktopServices.openUrl(url)


def _guessed_height(markdown: str) -> int:
    """About how tall a chunk not made yet will be (its space until it is made)."""
    return GUESS_LINE_PX * (len(markdown) // GUESS_LINE_CHARS + markdown.count("\n") + 1)


def _renumber_copy_links(html: str, base: int) -> str:
    """Tail renders number their code blocks from 0; shift them after the kept ones."""
    if 'href="copy:' not in html:
        return html
    out: list[str] = []
    rest = html
    marker = 'href="copy:'
    while (at := rest.find(marker)) != -1:
        end = rest.find('"', at + len(marker))
        number = int(rest[at + len(marker) : end])
        out.append(rest[:at] + f"{marker}{number + base}")
        rest = rest[end:]
    out.append(rest)
    return "".join(out)
