"""An answer's figures: tokens, tokens/s, time to first token, context used against its size.

The counts are the server's own (Ollama's `prompt_eval_count`, `eval_count`,
`eval_duration`; an OpenAI-compatible server's `usage`, asked for with
`stream_options.include_usage`). A server that sends none gets an estimate from
core.tokens, and the figures say they are estimated.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from loki_desktop.core.i18n import _, language
from loki_desktop.core.tokens import estimate_tokens

_NS = 1_000_000_000


@dataclass(frozen=True, slots=True)
class AnswerStats:
    """The figures of one turn's answer.

    `prompt_tokens` are those of the turn's last request, `answer_tokens` the sum over its
    rounds, `tokens_per_second` the answer tokens over the time spent writing them,
    `first_token_s` the time from the first request to the first piece streamed back (answer
    or reasoning), `context_tokens` what the conversation fills of the model's context after
    this answer (the last request and its answer) against `context_limit`.
    `estimated`: some count came from core.tokens because the server sent none.
    `rounds` (tool rounds) and `prompt_total` (the prompts of every request, summed) are for
    the evaluation, not shown.
    """

    prompt_tokens: int = 0
    answer_tokens: int = 0
    tokens_per_second: float | None = None
    first_token_s: float | None = None
    context_tokens: int = 0
    context_limit: int = 0
    estimated: bool = False
    rounds: int = 0
    prompt_total: int = 0

    def to_json(self) -> dict[str, Any]:
        """The `--json` shape: the six figures, and `estimated` only when they are."""
        data: dict[str, Any] = {
            "prompt_tokens": self.prompt_tokens,
            "answer_tokens": self.answer_tokens,
            "tokens_per_second": self.tokens_per_second,
            "first_token_s": self.first_token_s,
            "context_tokens": self.context_tokens,
            "context_limit": self.context_limit,
        }
        if self.estimated:
            data["estimated"] = True
        return data

    @classmethod
    def from_json(cls, data: object) -> AnswerStats | None:
        """What `to_json` wrote (stored with an answer); None for anything else."""
        if not isinstance(data, dict):
            return None

        def count(key: str) -> int:
            value = data.get(key)
            return value if type(value) is int else 0

        def figure(key: str) -> float | None:
            value = data.get(key)
            if isinstance(value, bool) or not isinstance(value, int | float):
                return None
            return float(value)

        return cls(
            prompt_tokens=count("prompt_tokens"),
            answer_tokens=count("answer_tokens"),
            tokens_per_second=figure("tokens_per_second"),
            first_token_s=figure("first_token_s"),
            context_tokens=count("context_tokens"),
            context_limit=count("context_limit"),
            estimated=data.get("estimated") is True,
        )

    @property
    def context_share(self) -> float:
        """How full the context is, from 0 to 1 (0 when its size is unknown)."""
        if self.context_limit <= 0:
            return 0.0
        return min(1.0, self.context_tokens / self.context_limit)


def number(value: float, decimals: int = 0) -> str:
    """A figure as the person's language writes it: 3 012,5 in French, 3,012.5 in English."""
    text = f"{value:,.{decimals}f}"
    if language() == "fr":  # narrow no-break space between thousands, comma for decimals
        text = text.replace(",", "\u202f").replace(".", ",")
    return text


def describe(stats: AnswerStats) -> str:
    """The one quiet line under an answer (and `ask --stats`): what is known, in order."""
    parts = [_("{n} jetons").format(n=number(stats.answer_tokens))]
    if stats.tokens_per_second is not None:
        parts.append(_("{n} jetons/s").format(n=number(stats.tokens_per_second, 1)))
    if stats.first_token_s is not None:
        parts.append(_("premier jeton en {s} s").format(s=number(stats.first_token_s, 2)))
    if stats.context_limit:
        parts.append(
            _("contexte {used} / {limit}").format(
                used=number(stats.context_tokens), limit=number(stats.context_limit)
            )
        )
    line = " · ".join(parts)
    return _("{figures} (estimé)").format(figures=line) if stats.estimated else line


@dataclass
class RoundFigures:
    """What one model request gave back, as the stream told it."""

    prompt_tokens: int | None = None
    answer_tokens: int | None = None
    eval_duration_ns: int | None = None
    sent_at: float = 0.0
    first_at: float | None = None
    ended_at: float | None = None
    answer_text: str = ""  # what was streamed (answer, reasoning, calls): for an estimate
    pieces: int = 0  # the streamed pieces, about one token each: the estimate when known
    prompt_estimate: int = 0  # core.llm.budget's estimate of the request
    window: int = 0


@dataclass
class StatsMeter:
    """Sums the rounds of one turn into its AnswerStats."""

    rounds: list[RoundFigures] = field(default_factory=list)

    def begin_round(self, prompt_estimate: int, window: int) -> RoundFigures:
        figures = RoundFigures(
            sent_at=time.monotonic(), prompt_estimate=prompt_estimate, window=window
        )
        self.rounds.append(figures)
        return figures

    def stats(self, tool_rounds: int = 0) -> AnswerStats | None:
        """The turn's figures so far (None before any request)."""
        if not self.rounds:
            return None
        estimated = False
        answer_total = 0
        writing_s = 0.0
        prompt_total = sum(f.prompt_tokens or 0 for f in self.rounds)
        for figures in self.rounds:
            tokens, guessed = _answer_tokens(figures)
            estimated = estimated or guessed
            answer_total += tokens
            writing_s += _writing_seconds(figures)
        last = self.rounds[-1]
        prompt = last.prompt_tokens
        if not prompt:
            prompt, estimated = last.prompt_estimate, True
        last_answer, _guessed = _answer_tokens(last)
        first = next((f for f in self.rounds if f.first_at is not None), None)
        return AnswerStats(
            prompt_tokens=prompt,
            answer_tokens=answer_total,
            tokens_per_second=round(answer_total / writing_s, 1) if writing_s > 0 else None,
            first_token_s=round(first.first_at - first.sent_at, 3)
            if first is not None and first.first_at is not None
            else None,
            context_tokens=prompt + last_answer,
            context_limit=last.window,
            estimated=estimated,
            rounds=tool_rounds,
            prompt_total=prompt_total,
        )


def _answer_tokens(figures: RoundFigures) -> tuple[int, bool]:
    """The round's answer tokens, and whether they are an estimate."""
    if figures.answer_tokens:
        return figures.answer_tokens, False
    if figures.pieces:
        return figures.pieces, True
    if not figures.answer_text:
        return 0, False
    return estimate_tokens(figures.answer_text), True


def _writing_seconds(figures: RoundFigures) -> float:
    """The server's own writing time when it says it, else first piece to the end."""
    if figures.eval_duration_ns:
        return figures.eval_duration_ns / _NS
    if figures.first_at is None or figures.ended_at is None:
        return 0.0
    return max(0.0, figures.ended_at - figures.first_at)
