"""The repetition guard: spots a stream that repeats the same passage again and again.

A small model that loses the thread often loops: the same sentence or paragraph, word for
word, until the server's limit. A legitimate list does not look like that: its items differ
("1. …", "2. …"), so only an exact run of the same passage at the end of the text counts,
long enough that no ordinary answer has one (REPEATS copies, MIN_SPAN characters in all).
"""

from __future__ import annotations

from dataclasses import dataclass

# A loop is at least this many copies of one passage, ending the text...
REPEATS = 4
# ... covering at least this many characters (a rule of 80 "=" or a short table stays legal).
MIN_SPAN = 400
LONGEST_PASSAGE = 1_000  # characters: a longer unit is a paragraph nobody repeats 4 times
WINDOW = REPEATS * LONGEST_PASSAGE  # only the end of the text is looked at
CHECK_EVERY = 128  # characters between two looks at the end of the text


@dataclass(frozen=True, slots=True)
class Loop:
    """A loop found: `passage` repeated `copies` times ends the text; `keep` is how many
    characters of the text to keep (everything before the loop, and one copy)."""

    passage: str
    copies: int
    keep: int


class RepetitionGuard:
    """Fed the stream's text piece by piece; says when its end has become a loop."""

    def __init__(self) -> None:
        self._text: list[str] = []
        self._length = 0
        self._checked_at = 0

    def feed(self, piece: str) -> Loop | None:
        self._text.append(piece)
        self._length += len(piece)
        if self._length - self._checked_at < CHECK_EVERY:
            return None
        self._checked_at = self._length
        text = "".join(self._text)
        self._text = [text]
        return find_loop(text)


def find_loop(text: str) -> Loop | None:
    """The shortest passage that repeats REPEATS times or more at the end of `text`."""
    tail = text[-WINDOW:]
    if len(tail) < MIN_SPAN:
        return None
    for period in range(1, min(LONGEST_PASSAGE, len(tail) // REPEATS) + 1):
        passage = tail[-period:]
        # string comparisons run in C: most periods fail on the first one
        if tail[-2 * period : -period] != passage:
            continue
        copies = _copies(tail, passage)
        if copies >= REPEATS and copies * period >= MIN_SPAN:
            return Loop(passage, copies, len(text) - (copies - 1) * period)
    return None


def _copies(tail: str, passage: str) -> int:
    """How many copies of `passage` end `tail`, one after the other."""
    period, copies = len(passage), 1
    while copies * period + period <= len(tail):
        end = len(tail) - copies * period
        if tail[end - period : end] != passage:
            break
        copies += 1
    return copies
