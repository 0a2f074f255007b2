"""Syntax colours for a file's lines: pygments tokens, in the style the Markdown code blocks use.

A new file is shown in a plain-text view (laid out in milliseconds, where the same 1,000
lines as a Markdown code block take over a second), coloured piece by piece from here.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pygments.lexer import Lexer

# (text, colour "#rrggbb" or None, bold): one line's pieces
Piece = tuple[str, str | None, bool]


class LineColourer:
    """A file's lines coloured as pygments reads them, a few at a time: `advance` lexes on
    from where it stopped (one token stream over the whole text), so the lines shown first
    cost only themselves and the rest can be coloured later without lexing anything twice."""

    def __init__(self, code: str, path: str, style: str) -> None:
        self.lines: list[list[Piece]] = []  # the complete lines, coloured
        self._open: list[Piece] = []  # the line being read
        lexer = _lexer_for(_name_key(path))
        self.known = lexer is not None  # False: no language for this file name
        self.done = lexer is None
        self._colours = _style(style)
        self._tokens: Iterator[tuple[Any, str]] = iter(())
        if lexer is not None:
            self._tokens = iter(lexer.get_tokens(code))

    def advance(self, lines: int, deadline: float | None = None) -> None:
        """Lex until `lines` lines are complete, the text ends, or `deadline` (perf_counter)."""
        while not self.done and len(self.lines) < lines:
            if deadline is not None and time.perf_counter() >= deadline:
                return
            for _ in range(64):  # the clock is read once per 64 tokens
                token = next(self._tokens, None)
                if token is None:
                    self.done = True
                    if self._open:
                        self.lines.append(self._open)
                    return
                self._take(*token)

    def _take(self, kind: Any, value: str) -> None:
        colour, bold = self._colours(kind)
        parts = value.split("\n")
        for index, part in enumerate(parts):
            if index:
                self.lines.append(self._open)
                self._open = []
            if part:
                self._open.append((part, colour, bold))


def _name_key(path: str) -> str:
    """What picks a lexer: the extension (same for every .py), else the whole name."""
    name = PurePosixPath(path).name
    suffix = PurePosixPath(name).suffix
    return f"x{suffix}" if suffix else name


@functools.lru_cache(maxsize=64)
def _lexer_for(name: str) -> Lexer | None:
    # pygments looks through every lexer's name patterns (~10 ms; the first call imports
    # them all, ~0.4 s): asked once per extension
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound

    try:
        return get_lexer_for_filename(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


@functools.lru_cache(maxsize=4)
def _style(name: str) -> Any:
    from pygments.styles import get_style_by_name

    style = get_style_by_name(name)

    @functools.lru_cache(maxsize=512)
    def colour_of(token: Any) -> tuple[str | None, bool]:
        found = style.style_for_token(token)
        return (f"#{found['color']}" if found["color"] else None, bool(found["bold"]))

    return colour_of
