"""`<think>…</think>` written in the content: split out however the stream cuts it."""

from __future__ import annotations

import pytest

from loki_desktop.core.llm.reply import ReplyReader
from loki_desktop.core.llm.think_tags import ThinkTagSplitter

REPLY = "<think>Let me count: r, r, r.</think>\n\nIl y a **3** r dans « strawberry »."


def _split(pieces: list[str]) -> tuple[str, str]:
    splitter = ThinkTagSplitter()
    segments = [s for piece in pieces for s in splitter.feed(piece)] + splitter.finish()
    thinking = "".join(text for reasoning, text in segments if reasoning)
    answer = "".join(text for reasoning, text in segments if not reasoning)
    return thinking, answer


@pytest.mark.parametrize("cut", range(1, len(REPLY)))
def test_a_tag_cut_anywhere_never_reaches_the_answer(cut: int) -> None:
    thinking, answer = _split([REPLY[:cut], REPLY[cut:]])
    assert thinking == "Let me count: r, r, r."
    assert answer == "Il y a **3** r dans « strawberry »."


def test_one_character_at_a_time() -> None:
    assert _split(list(REPLY)) == ("Let me count: r, r, r.", "Il y a **3** r dans « strawberry ».")


def test_text_that_only_looks_like_a_tag_is_kept() -> None:
    assert _split(["a <thin", "g> b <", "t"]) == ("", "a <thing> b <t")
    assert _split(["x <"]) == ("", "x <")


def test_an_unclosed_reasoning_is_all_reasoning() -> None:
    assert _split(["<think>still thin", "king"]) == ("still thinking", "")


def test_reasoning_is_not_read_as_a_tool_call() -> None:
    # a model that reasons about a call before making it: only the call after </think> counts
    reader = ReplyReader(["write_file"])
    pieces = [
        '<think>I could write <tool_call>{"name": "x"}</tool',
        "_call> but no.</think>",
        'Voici : {"name": "Alice", "age": 3}',
    ]
    shown = [s for piece in pieces for s in reader.feed(piece)]
    rest, recovery = reader.finish()
    shown += rest
    assert recovery is None
    assert "".join(t for r, t in shown if r).startswith("I could write <tool_call>")
    assert "".join(t for r, t in shown if not r) == 'Voici : {"name": "Alice", "age": 3}'
