"""Reading a streamed reply's content: reasoning tags split out, text-form calls held back.

The two filters in a row: `<think>…</think>` first (core.llm.think_tags), so reasoning is
shown as reasoning and never reaches the call recovery; then the answer text through
TextCallWatch (core.llm.textcalls), which holds back what could still be a tool call.
"""

from __future__ import annotations

from collections.abc import Collection

from loki_desktop.core.llm.textcalls import Recovery, TextCallWatch
from loki_desktop.core.llm.think_tags import Segment, ThinkTagSplitter


class ReplyReader:
    """Feed `content` pieces; get back (is_reasoning, text) to show now, in order.

    `tool_names` None: the model has no tools this turn, so nothing is held back as a
    possible call (a call it writes anyway is just text).
    """

    def __init__(self, tool_names: Collection[str] | None) -> None:
        self._tags = ThinkTagSplitter()
        self._watch = TextCallWatch(tool_names) if tool_names is not None else None

    @property
    def max_held(self) -> int:
        return self._watch.max_held if self._watch is not None else 0

    def feed(self, content: str) -> list[Segment]:
        return self._answer(self._tags.feed(content))

    def finish(self) -> tuple[list[Segment], Recovery | None]:
        """The end of the reply: what is left to show, or the calls the answer was."""
        shown = self._answer(self._tags.finish())
        if self._watch is None:
            return shown, None
        rest, recovery = self._watch.finish()
        if rest:
            shown.append((False, rest))
        return shown, recovery

    def abandon(self) -> list[Segment]:
        """The reply was cut off: everything held is shown as it is."""
        shown = self._answer(self._tags.finish())
        if self._watch is not None and (rest := self._watch.abandon()):
            shown.append((False, rest))
        return shown

    def _answer(self, segments: list[Segment]) -> list[Segment]:
        if self._watch is None:
            return segments
        shown: list[Segment] = []
        for reasoning, text in segments:
            if reasoning:
                shown.append((True, text))
            elif released := self._watch.feed(text):
                shown.append((False, released))
        return shown
