"""A conversation's title, from its first message (the window names it before any turn runs)."""

from __future__ import annotations

TITLE_LENGTH = 60


def conversation_title(text: str) -> str:
    """A conversation's title: its first message on one line, cut to TITLE_LENGTH."""
    line = " ".join(text.split())
    return line if len(line) <= TITLE_LENGTH else line[: TITLE_LENGTH - 1] + "…"
