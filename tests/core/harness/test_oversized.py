"""Issue 16.6: the newest call and its result are never dropped; too large, they are cut to
fit with a marker saying how much was cut."""

from __future__ import annotations

import re

from loki_desktop.core.llm.budget import SAFETY_MARGIN, ContextBudget, answer_reserve
from loki_desktop.core.messages import CallRecord, ChatMessage
from tests.core.harness.test_budget import NATIVE, SKILL, SYSTEM, exchange, fit

PROSE = "The module reads its configuration, then starts the workers and waits. "


def _cut_chars(text: str) -> int:
    match = re.search(r"\[\.\.\. ([\d,]+) more characters cut", text)
    assert match is not None, text[-200:]
    return int(match.group(1).replace(",", ""))


def _fits(window: int, raw: int) -> bool:
    return raw * (1 + SAFETY_MARGIN) <= window - answer_reserve(window)


def test_an_oversized_newest_result_is_cut_to_fit_never_dropped() -> None:
    big = PROSE * 400  # ~28,000 characters, ~5,600 tokens
    call = CallRecord("c1", "read_file", {"path": "notes.txt"})
    history = [
        *exchange(1),
        ChatMessage("user", "Lis notes.txt"),
        ChatMessage("assistant", "", tool_calls=(call,)),
        ChatMessage("tool", big, tool_call_id="c1", tool_name="read_file"),
    ]
    request = fit(history, window=4096)
    assert _fits(4096, request.raw_estimate)
    roles = [m["role"] for m in request.messages]
    assert roles[-3:] == ["user", "assistant", "tool"]
    assert request.messages[-2]["tool_calls"][0]["function"]["name"] == "read_file"
    result = request.messages[-1]["content"]
    kept = result.split("\n[...")[0]
    assert big.startswith(kept)
    assert len(kept) > 2000  # as much as fits, not a token gesture
    assert _cut_chars(result) == len(big) - len(kept)
    assert any("coupé" in notice and "read_file" in notice for notice in request.notices)


def test_older_history_goes_before_the_newest_result_is_cut() -> None:
    call = CallRecord("c1", "read_file", {"path": "a.txt"})
    history = [
        *[m for i in range(10) for m in exchange(i)],
        ChatMessage("user", "Lis a.txt"),
        ChatMessage("assistant", "", tool_calls=(call,)),
        ChatMessage("tool", PROSE * 30, tool_call_id="c1", tool_name="read_file"),
    ]
    request = fit(history, window=2048)
    assert request.messages[-1]["content"] == PROSE * 30  # whole
    assert request.dropped_messages > 0


def test_a_huge_argument_of_the_newest_call_is_cut_in_what_is_sent() -> None:
    content = "x = 1\n" * 200_000  # 1.2 MB written by write_file
    call = CallRecord("c1", "write_file", {"path": "big.py", "content": content})
    history = [
        ChatMessage("user", "Écris big.py"),
        ChatMessage("assistant", "", tool_calls=(call,)),
        ChatMessage("tool", "Wrote big.py (1200000 bytes).", tool_call_id="c1"),
    ]
    request = fit(history, window=8192)
    assert _fits(8192, request.raw_estimate)
    sent_call = request.messages[-2]["tool_calls"][0]["function"]
    assert sent_call["arguments"]["path"] == "big.py"
    sent_content = sent_call["arguments"]["content"]
    assert content.startswith(sent_content.split("\n[...")[0])
    assert _cut_chars(sent_content) > 1_000_000
    assert request.messages[-1]["content"] == "Wrote big.py (1200000 bytes)."


def test_several_results_share_the_room() -> None:
    calls = tuple(CallRecord(f"c{i}", "read_file", {"path": f"{i}.txt"}) for i in range(3))
    history = [
        ChatMessage("user", "Lis les trois"),
        ChatMessage("assistant", "", tool_calls=calls),
        ChatMessage("tool", "court", tool_call_id="c0", tool_name="read_file"),
        ChatMessage("tool", PROSE * 300, tool_call_id="c1", tool_name="read_file"),
        ChatMessage("tool", PROSE * 300, tool_call_id="c2", tool_name="read_file"),
    ]
    request = ContextBudget().fit(
        model="m", window=4096, system=[SYSTEM, SKILL], history=history, tools=NATIVE
    )
    results = [m["content"] for m in request.messages if m["role"] == "tool"]
    assert results[0] == "court"
    assert abs(len(results[1]) - len(results[2])) < 200  # cut alike
    assert _fits(4096, request.raw_estimate)


def test_below_its_floor_each_text_keeps_its_floor_and_its_marker() -> None:
    from loki_desktop.core.llm.budget import message_tokens
    from loki_desktop.core.llm.shrink import FLOOR_TOKENS, shrink_to

    call = CallRecord("c1", "read_file", {"path": "a.txt"})
    messages = [
        ChatMessage("assistant", "", tool_calls=(call,)),
        ChatMessage("tool", PROSE * 100, tool_call_id="c1", tool_name="read_file"),
    ]
    shrunk = shrink_to(messages, 10, message_tokens)  # no room at all
    result = shrunk.messages[1].content
    assert PROSE.startswith(result[:20])
    assert _cut_chars(result) == len(PROSE * 100) - len(result.split("\n[...")[0])
    assert shrunk.cost < FLOOR_TOKENS * 3
