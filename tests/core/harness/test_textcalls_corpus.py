"""Every reply of the corpus gives its expected outcome, whole and streamed in any split."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from loki_desktop.core.llm.textcalls import Recovery, TextCallWatch, recover_calls
from tests.core.harness.corpus import TOOL_NAMES, CorpusReply, load_corpus

REPLIES = load_corpus()


def _stream(text: str, sizes: list[int]) -> tuple[list[str], str, Recovery | None, int]:
    """Feed `text` in pieces of the given sizes; returns (shown pieces, rest, recovery, held)."""
    watch = TextCallWatch(TOOL_NAMES)
    shown = []
    index = 0
    for size in sizes:
        piece = text[index : index + size]
        index += size
        shown.append(watch.feed(piece))
    assert index >= len(text)
    rest, recovery = watch.finish()
    return shown, rest, recovery, watch.max_held


def _splits(text: str) -> dict[str, list[int]]:
    rng = random.Random(len(text))
    random_sizes = []
    total = 0
    while total < len(text):
        size = rng.randint(1, 9)
        random_sizes.append(size)
        total += size
    return {
        "whole": [len(text) or 1],
        "per-char": [1] * len(text),
        "random": random_sizes,
        "fours": [4] * (len(text) // 4 + 1),
    }


def test_corpus_is_big_and_covers_every_category() -> None:
    counts = Counter(reply.category for reply in REPLIES)
    assert set(counts) == {
        "hermes",
        "mistral",
        "llama",
        "json_calls",
        "multiple",
        "broken_args",
        "mixed_prose",
        "unknown_tools",
        "answers_with_json",
        "answers_with_code",
        "plain_prose",
    }
    assert len(REPLIES) >= 80
    assert len({reply.id for reply in REPLIES}) == len(REPLIES)
    assert sum(reply.is_call for reply in REPLIES) >= 40
    assert sum(not reply.is_call for reply in REPLIES) >= 35


@pytest.mark.parametrize("reply", REPLIES, ids=lambda reply: f"{reply.category}/{reply.id}")
def test_reply_outcome(reply: CorpusReply) -> None:
    recovery = recover_calls(reply.text, TOOL_NAMES)
    if not reply.is_call:
        assert recovery is None, f"an answer was taken for a call: {recovery}"
        return
    assert recovery is not None, "the text-form call was not recovered"
    assert [(call.name, call.arguments) for call in recovery.calls] == list(reply.calls)
    if reply.form is not None:
        assert recovery.form == reply.form
    assert recovery.prose == reply.prose


@pytest.mark.parametrize("reply", REPLIES, ids=lambda reply: f"{reply.category}/{reply.id}")
def test_streaming_never_shows_a_call_and_shows_every_answer(reply: CorpusReply) -> None:
    expected = recover_calls(reply.text, TOOL_NAMES)
    for name, sizes in _splits(reply.text).items():
        shown, rest, recovery, _held = _stream(reply.text, sizes)
        assert recovery == expected, name
        if recovery is None:
            assert "".join(shown) + rest == reply.text, name
        else:
            # only the prose before the call was shown, and nothing after the decision
            assert "".join(shown) == recovery.prose, name
            assert rest == ""


def _held_per_char(text: str) -> int:
    return _stream(text, [1] * len(text))[3]


def test_prose_is_flushed_within_a_marker_length() -> None:
    """An answer that does not open like a call is held back at most a marker's length."""
    answers = [
        reply
        for reply in REPLIES
        if not reply.is_call and reply.text.lstrip()[:1] not in ("{", "[", "`")
    ]
    assert len(answers) >= 15
    assert max(_held_per_char(reply.text) for reply in answers) <= len("<|python_tag|>")


def test_a_code_fence_in_another_language_is_shown_after_its_first_line() -> None:
    for reply in REPLIES:
        first_line = reply.text.split("\n", 1)[0]
        if first_line.startswith("```") and first_line[3:].strip() in ("python", "yaml", "jsonc"):
            assert _held_per_char(reply.text) <= len(first_line), reply.id


def test_a_json_answer_is_shown_at_its_first_key_a_call_does_not_have() -> None:
    reply = next(r for r in REPLIES if r.id == "package-json-bare")
    assert _held_per_char(reply.text) <= reply.text.index('"version"') + len('"version"')
    reply = next(r for r in REPLIES if r.id == "json-schema-bare")
    assert _held_per_char(reply.text) <= reply.text.index('"properties"') + len('"properties"')
