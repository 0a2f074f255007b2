"""Reasoning written inside the answer as `<think>…</think>`, split out while streaming.

Some models (DeepSeek-R1 distills, QwQ, models behind servers that do not parse reasoning)
write their reasoning into `content` between these tags. The splitter gives back, for
each streamed piece, the answer text and the reasoning text in order; a tag cut across
pieces is held (at most its length minus one) until it is known. Each character is
looked at a bounded number of times, whatever the length of the reply.
"""

from __future__ import annotations

OPEN_TAG = "<think>"
CLOSE_TAG = "</think>"

Segment = tuple[bool, str]  # (is reasoning, text)


class ThinkTagSplitter:
    """Feed the content as it streams; get (is_reasoning, text) segments back."""

    def __init__(self) -> None:
        self._inside = False
        self._pending = ""  # the end of the last piece, which may start a tag
        self._after_close = False  # drop the blank lines a model puts after </think>

    def feed(self, text: str) -> list[Segment]:
        buffer = self._pending + text
        self._pending = ""
        segments: list[Segment] = []
        start = 0
        while True:
            tag = CLOSE_TAG if self._inside else OPEN_TAG
            found = buffer.find(tag, start)
            if found < 0:
                break
            self._emit(segments, buffer[start:found])
            start = found + len(tag)
            self._inside = not self._inside
            self._after_close = not self._inside
        held = _partial_tag(buffer, start, CLOSE_TAG if self._inside else OPEN_TAG)
        self._emit(segments, buffer[start : len(buffer) - held])
        self._pending = buffer[len(buffer) - held :]
        return segments

    def finish(self) -> list[Segment]:
        """The end of the reply: what was held is text after all."""
        segments: list[Segment] = []
        self._emit(segments, self._pending)
        self._pending = ""
        return segments

    def _emit(self, segments: list[Segment], text: str) -> None:
        if not self._inside and self._after_close:
            text = text.lstrip()
            if text:
                self._after_close = False
        if text:
            segments.append((self._inside, text))


def _partial_tag(buffer: str, start: int, tag: str) -> int:
    """How many characters at the end of `buffer[start:]` could begin `tag`."""
    longest = min(len(tag) - 1, len(buffer) - start)
    for size in range(longest, 0, -1):
        if tag.startswith(buffer[len(buffer) - size :]):
            return size
    return 0
