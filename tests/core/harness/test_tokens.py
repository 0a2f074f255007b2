"""The token estimate against real tokenizer counts (tests/corpus/tokens/reference.json)."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from loki_desktop.core.tokens import estimate_tokens

REFERENCE = json.loads(
    (Path(__file__).resolve().parents[2] / "corpus" / "tokens" / "reference.json").read_text(
        encoding="utf-8"
    )
)
TOKENIZERS = ("qwen3", "llama3.1", "gemma3")


def test_reference_covers_what_a_request_carries() -> None:
    kinds = {sample["kind"] for sample in REFERENCE}
    assert kinds >= {"system_prompt", "french_markdown", "python", "tool_json", "tool_output"}
    assert sum(len(sample["text"]) for sample in REFERENCE) > 50_000


@pytest.mark.parametrize("tokenizer", TOKENIZERS)
def test_total_is_within_ten_percent_and_rarely_low(tokenizer: str) -> None:
    estimated = sum(estimate_tokens(sample["text"]) for sample in REFERENCE)
    real = sum(sample["tokens"][tokenizer] for sample in REFERENCE)
    assert 0.95 * real <= estimated <= 1.10 * real
    errors = [
        estimate_tokens(sample["text"]) / sample["tokens"][tokenizer] - 1 for sample in REFERENCE
    ]
    # the budget adds a 10 % margin and keeps a quarter of the window for the answer
    assert min(errors) >= -0.12
    assert statistics.median(errors) >= -0.02


def test_tool_schemas_are_not_underestimated() -> None:
    for sample in REFERENCE:
        if sample["kind"] == "tool_json":
            assert estimate_tokens(sample["text"]) >= max(sample["tokens"].values()) * 0.98


def test_edge_cases() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("a") == 1
    # digits are counted one by one (Qwen and Gemma split numbers into digits)
    assert estimate_tokens("1234567890") == 10
    # a run of spaces is about one token, not one per space
    assert estimate_tokens("a" + " " * 12 + "b") == 3
    # CJK is dense: about 0.6 token per character, never less than half
    chinese = "请读取配置文件然后告诉我服务器监听的端口"
    assert len(chinese) // 2 <= estimate_tokens(chinese) <= len(chinese)
    # rare symbols fall back to bytes
    assert estimate_tokens("⠁⠂⠃⠄") >= 8


def test_longer_text_never_costs_less() -> None:
    text = "Le fichier main.py définit une fonction main() qui lit la configuration. " * 3
    costs = [estimate_tokens(text[:n]) for n in range(0, len(text), 7)]
    assert costs == sorted(costs)
