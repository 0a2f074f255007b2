"""An answer's caps: its length in tokens and its time, sent to the server and held by Loki.

The length cap goes to the server with each request (Ollama's `options.num_predict`,
Chat Completions' `max_tokens`) and Loki counts the streamed pieces too, since not every
server honours it. The time cap bounds the model's streaming over a whole turn (the time
tools and approvals take is not counted): `ask --timeout S`, and each eval task's cap.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

from loki_desktop.core.i18n import _, ngettext
from loki_desktop.core.llm.repetition import Loop, RepetitionGuard
from loki_desktop.core.ports import ChatChunk
from loki_desktop.core.settings import Settings

# Why Loki (or the server) ended a reply before the model did: these are also Done reasons.
StopReason = Literal["length", "timeout", "repetition"]

# Ollama's option and the one the OpenAI-compatible backend turns into `max_tokens`.
NUM_PREDICT = "num_predict"


@dataclass(frozen=True, slots=True)
class AnswerCaps:
    """0 means no cap."""

    max_tokens: int = 0
    timeout_s: float = 0.0

    def over(self, other: AnswerCaps) -> AnswerCaps:
        """These caps where set, `other`'s elsewhere (a flag over the setting)."""
        return AnswerCaps(self.max_tokens or other.max_tokens, self.timeout_s or other.timeout_s)


def settings_caps(settings: Settings) -> tuple[AnswerCaps, dict[str, AnswerCaps]]:
    """The caps the settings give every model, and those set for one model."""
    general = AnswerCaps(settings.answer_max_tokens, float(settings.answer_timeout_s))
    per_model = {
        model: AnswerCaps(caps.get("max_tokens", 0), float(caps.get("timeout_s", 0)))
        for model, caps in settings.model_answer_caps.items()
    }
    return general, per_model


class AnswerClock:
    """The time cap of one turn: the model's streaming time, summed over its replies."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self._spent = 0.0
        self._started: float | None = None

    def remaining(self) -> float | None:
        """Seconds the next reply may stream (None: no cap)."""
        if not self.timeout_s:
            return None
        return max(0.0, self.timeout_s - self._spent)

    def start(self) -> None:
        self._started = time.monotonic()

    def stop(self) -> None:
        if self._started is not None:
            self._spent += time.monotonic() - self._started
            self._started = None


class ReplyLimit:
    """Watches one reply's stream: its length in streamed pieces (one a token, as Ollama
    and llama.cpp stream) and a loop in its answer or its reasoning."""

    def __init__(self, max_tokens: int) -> None:
        self.max_tokens = max_tokens
        self.pieces = 0
        self.loop: Loop | None = None
        self.loop_in_thinking = False
        self._answer = RepetitionGuard()
        self._thinking = RepetitionGuard()

    def check(self, chunk: ChatChunk) -> StopReason | None:
        """Why the stream must stop after `chunk` (None: it goes on)."""
        if chunk.content or chunk.thinking:
            self.pieces += 1
        if chunk.content and (loop := self._answer.feed(chunk.content)):
            self.loop = loop
            return "repetition"
        if chunk.thinking and (loop := self._thinking.feed(chunk.thinking)):
            self.loop, self.loop_in_thinking = loop, True
            return "repetition"
        # past the cap only: a server that honours it ends the reply at the cap itself, and
        # its last line (the counts, done_reason "length") is still read
        if self.max_tokens and self.pieces > self.max_tokens:
            return "length"
        return None


def trim_loop(text: str, loop: Loop) -> str:
    """`text` without the copies of the loop after the first (when it still ends with them)."""
    extra = loop.passage * (loop.copies - 1)
    return text[: len(text) - len(extra)] if extra and text.endswith(extra) else text


def length_notice(max_tokens: int) -> str:
    if not max_tokens:
        return _("La réponse a été coupée : le modèle a atteint sa limite de longueur.")
    return ngettext(
        "La réponse a été coupée à {n} jeton (la longueur maximale d'une réponse) : ce qui "
        "précède est gardé.",
        "La réponse a été coupée à {n} jetons (la longueur maximale d'une réponse) : ce qui "
        "précède est gardé.",
        max_tokens,
    ).format(n=max_tokens)


def timeout_notice(timeout_s: float) -> str:
    return _(
        "La réponse a été arrêtée après {n} s (la durée maximale d'une réponse) : ce qui "
        "précède est gardé."
    ).format(n=f"{timeout_s:g}")


def repetition_notice(loop: Loop) -> str:
    passage = " ".join(loop.passage.split())
    if len(passage) > 60:
        passage = passage[:59] + "…"
    return _(
        "Loki a arrêté la réponse : le modèle répétait le même passage en boucle ({n} fois, "
        "« {passage} »). Ce qui précède est gardé, avec une seule copie du passage."
    ).format(n=loop.copies, passage=passage)
