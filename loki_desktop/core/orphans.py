"""Tool calls a crash left without a result get one when their conversation is loaded."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from loki_desktop.core.messages import CallRecord, ChatMessage


def answer_orphans(
    history: Sequence[ChatMessage], result: Callable[[CallRecord], ChatMessage]
) -> tuple[list[ChatMessage], list[ChatMessage]]:
    """The history with `result(call)` right after the results of each call that has none,
    and those of them that fall at its very end (to store: they belong there).

    A model must never see a call without its result: it would take the call as pending,
    and some chat templates reject it.
    """
    patched: list[ChatMessage] = []
    at_end: list[ChatMessage] = []
    index = 0
    while index < len(history):
        message = history[index]
        end = index + 1
        if message.role == "assistant" and message.tool_calls:
            while end < len(history) and history[end].role == "tool":
                end += 1
            answered = {m.tool_call_id for m in history[index + 1 : end]}
            added = [result(call) for call in message.tool_calls if call.id not in answered]
            patched += [*history[index:end], *added]
            if end == len(history):
                at_end = added
        else:
            patched.append(message)
        index = end
    return patched, at_end
