"""Conversations that outlast the context: older turns summarised in one call, recent ones kept.

When the next request would pass COMPACT_AT of what a request may use (the window minus the
room kept for the answer, core.llm.budget), large tool results of earlier turns are shrunk
first; if that is not enough, the turns before the recent ones are summarised in one call
(what was asked, decided, written, which files). The summary is stored in the conversation
as a message of its own (role "system", `meta.compacted` = how many messages from the start
it stands for): the window shows it as a card, the full history stays stored and visible,
and later requests carry the summary and the messages after that point only.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

from loki_desktop.core.messages import ChatMessage
from loki_desktop.core.tokens import estimate_tokens

# Compaction starts when a request would use this share of what a request may use.
COMPACT_AT = 0.8
# The recent turns kept word for word after a compaction: at most this share of it.
KEEP_RECENT = 0.4
# A tool result of an earlier turn longer than this is shrunk to its start before anything
# is summarised (a file read ten turns ago rarely matters whole).
OLD_TOOL_CHARS = 1_500
# Each message of the summary's input is cut to this at first (halved until it fits).
INPUT_MESSAGE_CHARS = 2_000
MIN_INPUT_MESSAGE_CHARS = 200
# Room asked for the summary itself, in tokens.
SUMMARY_TOKENS = 600

# model-facing
SUMMARY_SYSTEM = """\
You summarise the earlier part of a conversation between a user and Loki, an assistant \
with file tools, so that the conversation can go on without it. Write in the language of \
the conversation, at most 250 words, as short bullet points:
- what the user asked and the facts they gave (names, numbers, paths, versions: exactly);
- what was decided or answered;
- which files were read, written or changed, and why;
- what is still open.
Keep every fact the user asked to remember. Write only the summary."""

SUMMARY_HEADER = (
    "Summary of the earlier part of this conversation (the older messages are not shown):\n"
)
SHRUNK_NOTE = "\n[… {n} more characters of this old tool result are not shown]"


@dataclass(frozen=True, slots=True)
class Summary:
    """The newest summary of a conversation: its text and how many messages it covers."""

    text: str
    covers: int


def latest_summary(history: Sequence[ChatMessage]) -> Summary | None:
    for message in reversed(history):
        if is_summary(message):
            return Summary(message.content, message.meta.compacted)
    return None


def is_summary(message: ChatMessage) -> bool:
    return message.role == "system" and message.meta.compacted > 0


def is_card(message: ChatMessage) -> bool:
    """A message Loki stored for people (summary, plan, review): never sent as it is."""
    return message.role == "system"


def visible_to_model(history: Sequence[ChatMessage], covers: int) -> list[int]:
    """Indices of the messages a request may carry: those after the summary's cover, without
    Loki's own cards."""
    return [i for i in range(covers, len(history)) if not is_card(history[i])]


def shrink_old_results(message: ChatMessage) -> ChatMessage:
    """A tool result cut to OLD_TOOL_CHARS (a note says how much is left out)."""
    if message.role != "tool" or len(message.content) <= OLD_TOOL_CHARS:
        return message
    left = len(message.content) - OLD_TOOL_CHARS
    return replace(message, content=message.content[:OLD_TOOL_CHARS] + SHRUNK_NOTE.format(n=left))


def choose_cover(
    history: Sequence[ChatMessage],
    covered: int,
    last_user: int,
    keep_tokens: int,
    cost: dict[int, int],
) -> int | None:
    """Where the new summary should stop: the start of the oldest turn such that it and the
    turns after it cost at most `keep_tokens` (the current turn, from `last_user`, is always
    kept). None when nothing older than the kept turns is left to summarise."""
    starts = [
        i
        for i in range(covered + 1, last_user + 1)
        if history[i].role == "user" and history[i].origin == "user"
    ]
    if not starts:
        return None
    chosen = starts[-1]
    for start in reversed(starts):
        kept = sum(tokens for index, tokens in cost.items() if index >= start)
        if kept > keep_tokens:
            break
        chosen = start
    return chosen


def summary_input(
    previous: Summary | None, messages: Sequence[ChatMessage], budget_tokens: int
) -> str:
    """The summary call's user message: the previous summary, then the messages it must
    add, each cut so that the whole stays within `budget_tokens`."""
    cap = INPUT_MESSAGE_CHARS
    while True:
        text = _transcript(previous, messages, cap)
        if estimate_tokens(text) <= budget_tokens or cap <= MIN_INPUT_MESSAGE_CHARS:
            return text
        cap //= 2


def _transcript(previous: Summary | None, messages: Sequence[ChatMessage], cap: int) -> str:
    lines = []
    if previous is not None:
        lines.append("Summary so far:\n" + previous.text + "\n\nWhat came after it:")
    for message in messages:
        lines.append(_line(message, cap))
    return "\n\n".join(lines)


def _line(message: ChatMessage, cap: int) -> str:
    def cut(text: str) -> str:
        return text if len(text) <= cap else text[:cap] + " […]"

    if message.role == "tool":
        return f"Tool result ({message.tool_name or 'tool'}): {cut(message.content)}"
    if message.role == "assistant":
        calls = "; ".join(
            f"calls {call.name}({cut(json.dumps(call.args, ensure_ascii=False))})"
            for call in message.tool_calls
        )
        said = cut(message.content)
        return "Assistant: " + " ".join(part for part in (said, calls) if part)
    who = "User" if message.origin == "user" else "Harness note"
    return f"{who}: {cut(message.content)}"
