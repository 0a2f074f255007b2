"""Markdown to the HTML subset QTextDocument renders, with highlighted, copyable code blocks.

Pure Python (markdown-it-py + pygments), so it can be measured without a display.
`find_cut` tells a streaming view which part of an answer is final: the blocks before
the last one never change again, so they are rendered once; only the last block (the
"tail") is rendered again as tokens arrive. A code fence, a list, a table, a blockquote or a
paragraph that grows past a limit is cut inside, so the tail stays small however long the
answer gets.

markdown-it and pygments are imported at the first render, not when the window starts
(~20 ms the first frame need not wait for: a new conversation shows no Markdown).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from loki_desktop.ui.theme import Palette

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token
    from pygments.formatters import HtmlFormatter

MONO = "'DejaVu Sans Mono', 'Menlo', 'Consolas', monospace"
# Past this many characters the tail block is cut inside (code lines, list items, table
# rows, lines of a blockquote or paragraph).
TAIL_LIMIT = 1500
# A paragraph or blockquote is cut at one of its last few line starts, where the rest
# still reads as the same block (not at a "2." that would start a list, nor a lazy line).
LINE_CUT_TRIES = 8
_CLOSING_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*$")


def new_parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    # html off: raw HTML from a model is shown as text, never interpreted
    return MarkdownIt("commonmark", {"html": False, "breaks": False}).enable(
        ["table", "strikethrough"]
    )


@dataclass
class RenderState:
    """What a message keeps across renders: its code blocks, for the copy links."""

    codes: list[str] = field(default_factory=list)
    # the first fence of the next render continues the last code block (a fence cut)
    continues_code: bool = False
    # the first table of the next render continues the last one (a table cut): its head,
    # carried so the rows parse as a table, is not shown again
    continues_table: bool = False
    # the last table of this render goes on in the next one (a table cut): no gap below it
    table_goes_on: bool = False


class MarkdownRenderer:
    """Renders Markdown for one palette; `copy_label` is the translated "Copy" link text."""

    def __init__(self, palette: Palette, copy_label: str = "Copier") -> None:
        self.palette = palette
        self.copy_label = copy_label
        self._md: MarkdownIt | None = None
        self._formatters: dict[str, HtmlFormatter[str]] = {}

    @property
    def md(self) -> MarkdownIt:
        """The parser with Loki's render rules, built at the first render."""
        if self._md is None:
            self._md = self._new_md()
        return self._md

    def _new_md(self) -> MarkdownIt:
        md = new_parser()
        for name in (
            "fence",
            "code_block",
            "code_inline",
            "table_open",
            "th_open",
            "td_open",
            "image",
            "blockquote_open",
        ):
            # set directly: add_render_rule would re-bind the method to the renderer
            # the renderer is a RendererHTML, which has `rules`; its declared type does not
            rules: dict[str, Any] = md.renderer.rules  # type: ignore[attr-defined]
            rules[name] = getattr(self, f"_render_{name}")
        return md

    def document_css(self) -> str:
        """The default style sheet of every message document."""
        p = self.palette
        return (
            f"a {{ color: {p.link}; text-decoration: none; font-weight: 600; }}"
            "h1 { font-size: 17pt; font-weight: 800; margin-top: 10px; margin-bottom: 6px; }"
            "h2 { font-size: 14pt; font-weight: 800; margin-top: 10px; margin-bottom: 4px; }"
            "h3 { font-size: 12pt; font-weight: 800; margin-top: 8px; margin-bottom: 4px; }"
            "h4, h5, h6 { font-size: 11pt; font-weight: 800; margin-top: 6px; }"
            "p { margin-top: 4px; margin-bottom: 6px; line-height: 135%; }"
            "li { margin-top: 1px; margin-bottom: 1px; }"
            "ul, ol { margin-top: 2px; margin-bottom: 6px; }"
            f"hr {{ color: {p.ink}; }}"
        )

    def render(self, text: str, state: RenderState | None = None) -> str:
        """HTML for `text`; code blocks are appended to `state.codes` (for copying)."""
        state = state if state is not None else RenderState()
        env: dict[str, Any] = {"state": state, "first_fence": True, "first_table": True}
        rendered = str(self.md.render(text, env)).strip()
        if state.continues_table:
            rendered = _without_first_head(rendered)
        if state.table_goes_on:
            rendered = _without_gap_below_last_table(rendered)
        return rendered

    # --- render rules (markdown-it calls them as `rule(tokens, idx, options, env)`) ---

    def _render_fence(
        self, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
    ) -> str:
        token = tokens[idx]
        language = token.info.strip().split(" ")[0] if token.info else ""
        return self._code_table(token.content, language, env)

    def _render_code_block(
        self, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
    ) -> str:
        return self._code_table(tokens[idx].content, "", env)

    def _code_table(self, code: str, language: str, env: dict[str, Any]) -> str:
        p = self.palette
        state: RenderState = env["state"]
        continuing = env["first_fence"] and state.continues_code and state.codes
        env["first_fence"] = False
        if continuing:
            state.codes[-1] += code
        else:
            state.codes.append(code)
        index = len(state.codes) - 1
        body = self._highlight(code.rstrip("\n"), language)
        head = ""
        if not continuing:
            label = html.escape(language or "code")
            head = (
                f'<tr><td style="background-color:{p.code_head}; padding:4px 10px;">'
                f'<span style="color:{p.code_head_ink}; font-family:{MONO}; font-weight:700;">'
                f"{label}</span></td>"
                f'<td align="right" style="background-color:{p.code_head}; padding:4px 10px;">'
                f'<a href="copy:{index}" style="color:{p.gold}; font-weight:700;">'
                f"{html.escape(self.copy_label)}</a></td></tr>"
            )
        top = "0" if continuing else "8px"
        # the outline on an outer one-cell table only: the inner cells get no borders
        return (
            f'<table width="100%" cellspacing="0" cellpadding="0" border="3"'
            f' style="border-style:solid; border-color:{p.ink}; border-collapse:collapse;'
            f' margin-top:{top}; margin-bottom:8px;"><tr><td>'
            f'<table width="100%" cellspacing="0" cellpadding="0" border="0">{head}'
            f'<tr><td colspan="2" style="background-color:{p.code_bg}; padding:8px 10px;">'
            f'<pre style="font-family:{MONO}; font-size:9pt; white-space:pre-wrap;'
            f' margin:0;">{body}</pre></td></tr></table></td></tr></table>\n'
        )

    def _highlight(self, code: str, language: str) -> str:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import get_lexer_by_name
        from pygments.util import ClassNotFound

        try:
            lexer = get_lexer_by_name(language) if language else None
        except ClassNotFound:
            lexer = None
        if lexer is None:
            return html.escape(code)
        formatter = self._formatters.get(self.palette.pygments)
        if formatter is None:
            formatter = HtmlFormatter(nowrap=True, noclasses=True, style=self.palette.pygments)
            self._formatters[self.palette.pygments] = formatter
        return str(highlight(code, lexer, formatter)).rstrip("\n")

    def _render_code_inline(
        self, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
    ) -> str:
        p = self.palette
        return (
            f'<span style="font-family:{MONO}; background-color:{p.code_bg};'
            f' color:{p.ink};">{html.escape(tokens[idx].content)}</span>'
        )

    def _render_table_open(
        self, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
    ) -> str:
        p = self.palette
        continuing = env["first_table"] and env["state"].continues_table
        env["first_table"] = False
        top = "0" if continuing else "6px"
        return (
            f'<table border="1" cellspacing="0" cellpadding="6" style="border-style:solid;'
            f" border-color:{p.ink}; border-collapse:collapse; margin-top:{top};"
            f' margin-bottom:8px;">\n'
        )

    def _render_th_open(
        self, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
    ) -> str:
        return f'<th{_align(tokens[idx])} style="background-color:{self.palette.gold_soft};">'

    def _render_td_open(
        self, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
    ) -> str:
        return f"<td{_align(tokens[idx])}>"

    def _render_image(
        self, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
    ) -> str:
        # never load an image: a model could point one at a local file
        token = tokens[idx]
        src = html.escape(str(token.attrGet("src") or ""), quote=True)
        alt = html.escape(token.content or src)
        return f'<a href="{src}">[{alt}]</a>'

    def _render_blockquote_open(
        self, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
    ) -> str:
        # ink, not the muted grey: a quote is text to read (Qt draws no left rule on a
        # block, so a tinted background and italics set it apart)
        palette = self.palette
        return (
            f'<blockquote style="color:{palette.ink}; background-color:{palette.code_bg}; '
            'font-style:italic; margin-left:12px; margin-right:0px;">'
        )


def _without_first_head(rendered: str) -> str:
    """Drop the first table's head (html is off: a "<thead>" can only be ours)."""
    start = rendered.find("<thead>")
    end = rendered.find("</thead>", start)
    if start == -1 or end == -1:
        return rendered
    return rendered[:start] + rendered[end + len("</thead>") :].lstrip("\n")


def _without_gap_below_last_table(rendered: str) -> str:
    """The last Markdown table (border 1; code blocks have 3) joins the next part of it."""
    start = rendered.rfind('<table border="1"')
    if start == -1:
        return rendered
    return rendered[:start] + rendered[start:].replace("margin-bottom:8px;", "margin-bottom:0;", 1)


def _align(token: Token) -> str:
    style = str(token.attrGet("style") or "")
    for side in ("left", "center", "right"):
        if side in style:
            return f' align="{side}"'
    return ""


# --- streaming: which part of the tail is final ---------------------------------------


@dataclass(frozen=True, slots=True)
class Cut:
    """`length` characters of the tail are final; `carry` opens the rest (a cut fence, the
    head of a cut table)."""

    length: int = 0
    carry: str = ""
    continues_code: bool = False
    continues_table: bool = False


def find_cut(md: MarkdownIt, tail: str, limit: int = TAIL_LIMIT) -> Cut:
    """The part of `tail` that no further text can change, and how the rest must start."""
    if not tail:
        return Cut()
    tokens = md.parse(tail)
    blocks = [t for t in tokens if t.level == 0 and t.map is not None and t.nesting >= 0]
    if not blocks:
        return Cut()
    starts = _line_starts(tail)
    last = blocks[-1]
    assert last.map is not None
    if len(blocks) >= 2 and last.map[0] > 0:
        return Cut(starts[last.map[0]])
    if len(tail) <= limit:
        return Cut()
    if last.type == "fence":
        return _cut_fence(tail, last, starts)
    if last.type == "table_open":
        return _cut_table(tail, last, starts)
    if last.type in ("bullet_list_open", "ordered_list_open"):
        items = [t for t in tokens if t.type == "list_item_open" and t.level == 1 and t.map]
        if len(items) >= 2:
            item_map = items[-1].map
            assert item_map is not None
            return Cut(starts[item_map[0]])
    if last.type in ("paragraph_open", "blockquote_open"):
        return _cut_lines(md, tail, tokens, last, starts)
    return Cut()


def _cut_table(tail: str, table: Token, starts: list[int]) -> Cut:
    """Before the table's last complete row; the rest starts with the head and delimiter
    rows again, so it still parses as the same table (its head is not shown twice)."""
    assert table.map is not None
    first, end = table.map
    growing = len(starts) - 1  # the last line may still be growing
    last_row = min(end, growing) - 1
    if last_row <= first + 2:  # keep the head and at least one row on each side
        return Cut()
    head = tail[starts[first] : starts[first + 2]]
    return Cut(starts[last_row], carry=head, continues_table=True)


def _cut_lines(
    md: MarkdownIt, tail: str, tokens: Sequence[Token], block: Token, starts: list[int]
) -> Cut:
    """Before the last complete line of a paragraph or blockquote (that line stays in the
    tail with the growing one: a table delimiter or a setext underline may still follow)."""
    assert block.map is not None
    # a blockquote's own blocks: it is cut between them, or inside a paragraph of it only
    inner = [
        (t.type, t.map[0], t.map[1])
        for t in tokens
        if t.level == 1 and t.nesting >= 0 and t.map and t.type != "inline"
    ]
    growing = len(starts) - 1
    for line in range(growing - 1, block.map[0], -1)[:LINE_CUT_TRIES]:
        if any(kind != "paragraph_open" and start < line < end for kind, start, end in inner):
            continue  # inside a code block, a list... of the quote
        rest = md.parse(tail[starts[line] :])
        if rest and rest[0].type == block.type:
            return Cut(starts[line])
    return Cut()


def _cut_fence(tail: str, fence: Token, starts: list[int]) -> Cut:
    assert fence.map is not None
    first, end = fence.map
    lines = tail.split("\n")
    opener = lines[first]
    closing = _CLOSING_FENCE.match(lines[end - 1]) if end - 1 > first else None
    if (
        closing
        and closing.group(1)[0] == fence.markup[0]
        and len(closing.group(1)) >= len(fence.markup)
    ):
        # a closed fence: final as soon as its closing line is complete
        cut = starts[end] if end < len(starts) else len(tail)
        return Cut(cut) if tail[:cut].endswith("\n") else Cut()
    cut = tail.rfind("\n") + 1  # the last line may still be growing
    body_start = starts[first + 1] if first + 1 < len(starts) else len(tail) + 1
    if cut <= body_start:
        return Cut()
    return Cut(cut, carry=opener + "\n", continues_code=True)


def _line_starts(text: str) -> list[int]:
    starts = [0]
    index = text.find("\n")
    while index != -1:
        starts.append(index + 1)
        index = text.find("\n", index + 1)
    return starts


def split_blocks(md: MarkdownIt, text: str, limit: int) -> list[str]:
    """`text` cut before top-level blocks into pieces of at least `limit` characters (the
    last may be shorter): each renders alone as it does inside the whole, but for a link
    reference defined in another piece. A single block longer than `limit` stays whole."""
    offsets = _line_starts(text)  # where each line starts
    tokens = md.parse(text)
    starts = sorted({t.map[0] for t in tokens if t.level == 0 and t.map and t.nesting >= 0})
    pieces: list[str] = []
    begin = 0
    for line in starts:
        at = offsets[line] if line < len(offsets) else len(text)
        if at - begin >= limit:
            pieces.append(text[begin:at])
            begin = at
    pieces.append(text[begin:])
    return pieces
