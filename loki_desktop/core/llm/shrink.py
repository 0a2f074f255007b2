"""Cutting the newest tool call and its results to fit the context, never dropping them.

A model that never sees the result of its last call takes it as not run and calls it again
until the round limit. When that call and its results do not fit, their longest texts (the
results, and string arguments such as a whole file given to write_file) are cut alike, each
keeping its start and a marker saying how many characters were cut. Only what is sent is
cut: the history keeps everything.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from loki_desktop.core.messages import CallRecord, ChatMessage
from loki_desktop.core.tokens import estimate_tokens

# A cut text keeps at least this many tokens: less would tell the model nothing.
FLOOR_TOKENS = 64
# What the marker itself costs.
MARKER_TOKENS = 16
# Each try that still does not fit (the estimate is not additive) lowers the cut this much.
RETRY_FACTOR = 0.85
TRIES = 12

Cost = Callable[[ChatMessage], int]


@dataclass(frozen=True, slots=True)
class Shrunk:
    messages: list[ChatMessage]
    cost: int
    cut_chars: int  # characters left out, over all the texts


@dataclass(frozen=True, slots=True)
class _Piece:
    """One text that may be cut: a tool result, or a string argument of a call."""

    message: int
    call: int | None  # None: the message's content
    key: str
    text: str


def marker(cut: int) -> str:
    """Ends a cut text (model-facing)."""
    return f"\n[... {cut:,} more characters cut here to fit the model's context ...]"


def cut_text(text: str, tokens: int) -> tuple[str, int]:
    """The start of `text` in about `tokens` tokens, then the marker; and how much was cut."""
    keep = min(len(text), tokens * 4)
    while keep > 0 and estimate_tokens(text[:keep]) > tokens:
        keep = int(keep * RETRY_FACTOR)
    return text[:keep] + marker(len(text) - keep), len(text) - keep


def floor_cost(messages: Sequence[ChatMessage], cost: Cost) -> int:
    """The least these messages can cost once cut (each long text at FLOOR_TOKENS)."""
    total = sum(cost(m) for m in messages)
    for piece in _pieces(messages):
        total -= max(0, estimate_tokens(piece.text) - FLOOR_TOKENS - MARKER_TOKENS)
    return total


def shrink_to(messages: Sequence[ChatMessage], room: int, cost: Cost) -> Shrunk:
    """`messages` within `room` tokens, their longest texts cut alike; at worst (a room
    below `floor_cost`) each long text cut to FLOOR_TOKENS."""
    total = sum(cost(m) for m in messages)
    if total <= room:
        return Shrunk(list(messages), total, 0)
    pieces = list(_pieces(messages))
    costs = [estimate_tokens(piece.text) for piece in pieces]
    base = total - sum(costs) + MARKER_TOKENS * len(pieces)
    level = _water_level(costs, room - base)
    for _attempt in range(TRIES):
        shrunk = _cut_to(messages, pieces, costs, max(level, FLOOR_TOKENS), cost)
        if shrunk.cost <= room or level <= FLOOR_TOKENS:
            return shrunk
        level = int(level * RETRY_FACTOR)
    return _cut_to(messages, pieces, costs, FLOOR_TOKENS, cost)


def _cut_to(
    messages: Sequence[ChatMessage], pieces: list[_Piece], costs: list[int], level: int, cost: Cost
) -> Shrunk:
    """Every text over `level` tokens cut to it."""
    cuts = {
        index: cut_text(piece.text, level)
        for index, (piece, size) in enumerate(zip(pieces, costs, strict=True))
        if size > level
    }
    shrunk = _apply(messages, pieces, {i: text for i, (text, _n) in cuts.items()})
    return Shrunk(shrunk, sum(cost(m) for m in shrunk), sum(n for _text, n in cuts.values()))


def _water_level(costs: list[int], available: int) -> int:
    """The most tokens each text may keep so that together they take `available`."""
    remaining = available
    ordered = sorted(costs)
    for index, size in enumerate(ordered):
        left = len(ordered) - index
        if size * left > remaining:
            return remaining // left
        remaining -= size
    return ordered[-1] if ordered else 0


def _pieces(messages: Sequence[ChatMessage]) -> Iterator[_Piece]:
    for index, message in enumerate(messages):
        if message.role == "tool":
            yield _Piece(index, None, "", message.content)
        for number, call in enumerate(message.tool_calls):
            for key, value in call.args.items():
                if isinstance(value, str):
                    yield _Piece(index, number, key, value)


def _apply(
    messages: Sequence[ChatMessage], pieces: list[_Piece], cuts: dict[int, str]
) -> list[ChatMessage]:
    result = list(messages)
    for index, text in cuts.items():
        piece = pieces[index]
        message = result[piece.message]
        if piece.call is None:
            result[piece.message] = dataclasses.replace(message, content=text)
            continue
        calls = list(message.tool_calls)
        call = calls[piece.call]
        calls[piece.call] = CallRecord(call.id, call.name, {**call.args, piece.key: text})
        result[piece.message] = dataclasses.replace(message, tool_calls=tuple(calls))
    return result
