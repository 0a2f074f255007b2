"""Syntax colours for a file's lines: pygments tokens, in the style the Markdown code blocks use.

A new file is shown in a plain-text view (laid out in milliseconds, where the same 1,000
lines as a Markdown code block take over a second), coloured piece by piece from here.
"""

from __future__ import annotations

import functools
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pygments.lexer import Lexer

# (text, colour "#rrggbb" or None, bold): one line's pieces
Piece = tuple[str, str | None, bool]


def coloured_lines(code: str, path: str, style: str) -> list[list[Piece]] | None:
    """Each line of `code` as coloured pieces; None when the file name has no known language."""
    lexer = _lexer_for(_name_key(path))
    if lexer is None:
        return None
    from pygments import lex

    colours = _style(style)
    lines: list[list[Piece]] = [[]]
    for token, value in lex(code, lexer):
        colour, bold = colours(token)
        parts = value.split("\n")
        for index, part in enumerate(parts):
            if index:
                lines.append([])
            if part:
                lines[-1].append((part, colour, bold))
    if lines and not lines[-1] and code.endswith("\n"):
        lines.pop()  # the lexer's final line break opens no line
    return lines


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
