"""Fitting each request into the model's context window, so Ollama never has to cut it.

Ollama silently drops the front of a prompt that overflows `num_ctx`: the system prompt
and the tool definitions go first. Before each request we estimate its tokens and, when
it would not fit with room for the answer, leave out the oldest history (never the system
prompt, the skill, the last user message, or the newest tool call with its results — cut
to fit if need be, see core.llm.shrink; a tool result always travels with its call), then
the tools of the most expensive MCP servers. After the reply, the server's
`prompt_eval_count` calibrates the estimate per model and tells us if a cut happened anyway.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from loki_desktop.core.i18n import _, ngettext
from loki_desktop.core.llm.context_size import ContextSize, effective_context
from loki_desktop.core.llm.profiles import ModelProfiles
from loki_desktop.core.llm.shrink import floor_cost, shrink_to
from loki_desktop.core.messages import ChatMessage
from loki_desktop.core.ports import BackendError, ChatBackend, ModelProfile, ToolSpec
from loki_desktop.core.slim import slim_spec, spec_tokens
from loki_desktop.core.tokens import estimate_tokens

# Tokens a chat template adds around each message (role header, end-of-turn marker).
MESSAGE_OVERHEAD = 5
# The template's text around the tool list (Qwen 2.5's is about 100 tokens, Llama 3.1's 60).
TOOLS_PREAMBLE = 120
# The generation prompt and start-of-text tokens.
REQUEST_OVERHEAD = 10
# Our estimate may be low by this much even after calibration (measured worst case on
# real tokenizers: 15 % low before calibration, see core.tokens).
SAFETY_MARGIN = 0.10
# Room left for the answer: a quarter of the window, within these bounds.
MIN_ANSWER_RESERVE = 512
MAX_ANSWER_RESERVE = 4096
# Calibration: the server's count over our raw estimate, kept within these bounds.
MIN_FACTOR, MAX_FACTOR = 0.5, 2.0
# A server count this far below what we expected means Ollama dropped part of the prompt.
CUT_RATIO = 0.6
# What one image costs a vision model, roughly (Gemma 3: 256 tokens; Qwen2.5-VL at 1,568 px:
# up to ~3,000; LLaVA: 576): a middle figure, so a request with images is not sent blind.
IMAGE_TOKENS = 768


class ContextTooSmall(BackendError):
    """Even the system prompt, the skill, the last message and the native tools do not fit."""


@dataclass(frozen=True, slots=True)
class FittedRequest:
    """What to send, and what was left out to make it fit."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    window: int
    raw_estimate: int  # uncalibrated tokens of what is sent
    estimate: int  # calibrated, with the safety margin
    dropped_messages: int = 0
    dropped_sources: tuple[tuple[str, int], ...] = ()
    notices: tuple[str, ...] = ()
    cut_chars: int = 0  # characters cut from the newest call and its results


@dataclass
class _Unit:
    """Messages that are kept or dropped together (a call and its results)."""

    messages: list[ChatMessage]
    cost: int
    protected: bool = False


@dataclass
class ContextBudget:
    """Per-model context windows and estimate calibration, kept across turns.

    One per agent is enough; share one between agents to keep the calibration when the
    agent is rebuilt.
    """

    # each model's /api/show profile (its context length among the rest), per host
    profiles: ModelProfiles = field(default_factory=ModelProfiles)
    _factor: dict[str, float] = field(default_factory=dict)
    # the context a server said it really runs a model with (a context-overflow answer)
    _served: dict[str, int] = field(default_factory=dict)
    _told_unknown: set[str] = field(default_factory=set)

    async def window(self, backend: ChatBackend, model: str, num_ctx: int) -> int:
        """The tokens a request may use (see `context`), or less if the server said by a
        context-overflow answer that it runs the model smaller."""
        window = (await self.context(backend, model, num_ctx)).tokens
        served = self._served.get(model)
        return min(window, served) if served else window

    async def context(self, backend: ChatBackend, model: str, num_ctx: int) -> ContextSize:
        """The context the server really applies: `num_ctx` when the person set one (> 0),
        else the model's own, else the server's default (core.llm.context_size).

        The server is asked once per model (again later if it could not be reached).
        """
        try:
            profile: ModelProfile | None = await self.profiles.get(backend, model)
        except BackendError:
            profile = None  # the request that follows will say what is wrong
        return effective_context(num_ctx, profile)

    def factor(self, model: str) -> float:
        """Real tokens per estimated token for this model (1.0 until the server told us)."""
        return self._factor.get(model, 1.0)

    def fit(
        self,
        *,
        model: str,
        window: int,
        system: Sequence[str],
        history: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
    ) -> FittedRequest:
        """The request to send: all of it if it fits, else without the oldest history, then
        without the tools of the most expensive MCP servers. Raises ContextTooSmall."""
        factor = self.factor(model)
        limit = window - answer_reserve(window)

        def fits(raw: int) -> bool:
            return math.ceil(raw * factor * (1 + SAFETY_MARGIN)) <= limit

        slimmed = [slim_spec(spec) for spec in tools]
        tool_costs = [spec_tokens(spec) for spec in slimmed]
        units = _units(history)
        newest = _newest_call(units)
        if newest is not None:  # counted at its least here; it gets what room is left below
            newest.cost = min(newest.cost, floor_cost(newest.messages, message_tokens))
            newest.protected = True
        fixed = REQUEST_OVERHEAD + sum(estimate_tokens(text) + MESSAGE_OVERHEAD for text in system)
        fixed += sum(unit.cost for unit in units if unit.protected)

        kept_sources = {spec.source for spec in slimmed}
        dropped_sources: list[tuple[str, int]] = []
        by_cost = _source_costs(slimmed, tool_costs)
        while not fits(fixed + _tools_cost(slimmed, tool_costs, kept_sources)):
            if not by_cost:
                needed = math.ceil(fixed * factor * (1 + SAFETY_MARGIN))
                raise ContextTooSmall(
                    _(
                        "Le message et les consignes (~{needed} jetons) ne tiennent pas dans le "
                        "contexte de {window} jetons du modèle. Raccourcissez le message ou "
                        "augmentez num_ctx dans les réglages."
                    ).format(needed=needed, window=window)
                )
            source, cost = by_cost.pop(0)
            kept_sources.discard(source)
            dropped_sources.append((source, cost))

        raw = fixed + _tools_cost(slimmed, tool_costs, kept_sources)
        cut_chars = 0
        if newest is not None:
            room = _most_that_fits(fits, limit) - (raw - newest.cost)
            shrunk = shrink_to(newest.messages, room, message_tokens)
            raw += shrunk.cost - newest.cost
            newest.messages, newest.cost = shrunk.messages, shrunk.cost
            cut_chars = shrunk.cut_chars
        kept_units = _fill_newest_first(units, raw, fits)
        raw += sum(unit.cost for unit in kept_units if not unit.protected)
        kept_ids = {id(unit) for unit in kept_units}
        dropped = sum(len(unit.messages) for unit in units if id(unit) not in kept_ids)

        messages = [{"role": "system", "content": text} for text in system]
        # reasoning a message still carries goes back (the turn strips what must not)
        messages += [m.to_ollama(with_thinking=True) for unit in kept_units for m in unit.messages]
        sent_tools = [spec.to_ollama() for spec in slimmed if spec.source in kept_sources]
        return FittedRequest(
            messages=messages,
            tools=sent_tools,
            window=window,
            raw_estimate=raw,
            estimate=math.ceil(raw * factor),
            dropped_messages=dropped,
            dropped_sources=tuple(dropped_sources),
            notices=tuple(
                _notices(window, dropped, dropped_sources) + _cut_notice(window, newest, cut_chars)
            ),
            cut_chars=cut_chars,
        )

    def estimate_request(
        self,
        model: str,
        system: Sequence[str],
        history: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
    ) -> int:
        """Tokens the whole request would take, counted as `fit` counts them (calibrated,
        with the safety margin): what compaction (core.compaction) compares to the window."""
        slimmed = [slim_spec(spec) for spec in tools]
        raw = REQUEST_OVERHEAD + sum(estimate_tokens(text) + MESSAGE_OVERHEAD for text in system)
        raw += sum(message_tokens(message) for message in history)
        raw += _tools_cost(slimmed, [spec_tokens(s) for s in slimmed], {s.source for s in slimmed})
        return math.ceil(raw * self.factor(model) * (1 + SAFETY_MARGIN))

    def learn_overflow(
        self, model: str, sent: FittedRequest, n_ctx: int | None, n_prompt: int | None
    ) -> str:
        """The server refused `sent` as too long: fit later requests to what it reported
        (its context, and its count of our prompt), or to half the window when it said
        neither. Returns the notice for the person."""
        if n_prompt and sent.raw_estimate > 0:
            ratio = n_prompt / sent.raw_estimate
            self._factor[model] = max(self.factor(model), min(MAX_FACTOR, ratio))
        served = n_ctx if n_ctx else sent.window // 2
        self._served[model] = min(served, self._served.get(model, served))
        return _(
            "Le serveur fait tourner le modèle avec un contexte de {n} jetons, plus petit que "
            "prévu : Loki raccourcit la requête et la renvoie. Réglez « Contexte du modèle » "
            "sur {n} dans Réglages → Général pour l'éviter."
        ).format(n=served)

    def tell_unknown_context(self, model: str) -> bool:
        """True the first time a model's unknown context length should be said."""
        if model in self._told_unknown:
            return False
        self._told_unknown.add(model)
        return True

    def observe(self, model: str, sent: FittedRequest, prompt_eval_count: int) -> str | None:
        """Learn from the server's count of the prompt; a warning when Ollama cut it anyway."""
        if prompt_eval_count <= 0 or sent.raw_estimate <= 0:
            return None
        factor = self.factor(model)
        expected = sent.raw_estimate * factor
        if prompt_eval_count >= sent.window:
            # Ollama's runner keeps exactly num_ctx tokens of an overflowing prompt: we were
            # low. Estimate higher from now on so the next request fits.
            self._factor[model] = min(MAX_FACTOR, factor * 1.25)
            return _(
                "La requête a rempli tout le contexte de {window} jetons : Ollama en a coupé "
                "le début (consignes et outils compris). Loki en enverra moins au prochain "
                "tour ; augmentez num_ctx dans les réglages si cela se répète."
            ).format(window=sent.window)
        if prompt_eval_count < expected * CUT_RATIO and expected > sent.window / 2:
            # Ollama dropped whole messages to make the prompt fit
            return _(
                "Ollama n'a lu que {counted} jetons d'une requête estimée à ~{expected} : "
                "des messages ont sans doute été coupés pour tenir dans le contexte de "
                "{window} jetons. Augmentez num_ctx dans les réglages."
            ).format(counted=prompt_eval_count, expected=round(expected), window=sent.window)
        ratio = prompt_eval_count / sent.raw_estimate
        if MIN_FACTOR <= ratio <= MAX_FACTOR:
            # the first count sets the factor; later ones move it halfway
            known = model in self._factor
            self._factor[model] = (factor + ratio) / 2 if known else ratio
        return None


def answer_reserve(window: int) -> int:
    """Tokens kept free for the model's answer."""
    return max(MIN_ANSWER_RESERVE, min(MAX_ANSWER_RESERVE, window // 4))


def message_tokens(message: ChatMessage) -> int:
    """Estimated tokens of one history message as the template renders it."""
    cost = estimate_tokens(message.model_content()) + MESSAGE_OVERHEAD
    cost += estimate_tokens(message.thinking) + IMAGE_TOKENS * len(message.images)
    for call in message.tool_calls:
        cost += estimate_tokens(call.name) + estimate_tokens(json.dumps(call.args)) + 10
    return cost


def _units(history: Sequence[ChatMessage]) -> list[_Unit]:
    """Group history so a tool result is never sent without its call."""
    units: list[_Unit] = []
    for message in history:
        if message.role == "tool" and units and _has_calls(units[-1]):
            units[-1].messages.append(message)
            units[-1].cost += message_tokens(message)
        else:
            units.append(_Unit([message], message_tokens(message)))
    # never drop the last user message (and the user's own, when a harness note follows it)
    for origin_matters in (False, True):
        for unit in reversed(units):
            first = unit.messages[0]
            if first.role == "user" and (not origin_matters or first.origin == "user"):
                unit.protected = True
                break
    return units


def _newest_call(units: list[_Unit]) -> _Unit | None:
    """The newest tool call of this turn with its results (after the user's last message)."""
    for unit in reversed(units):
        first = unit.messages[0]
        if first.role == "user" and first.origin == "user":
            return None
        if _has_calls(unit):
            return unit
    return None


def _most_that_fits(fits: Callable[[int], bool], limit: int) -> int:
    """The largest raw estimate that `fits` accepts (it is monotonic, and false past limit)."""
    low, high = 0, max(0, math.ceil(limit / MIN_FACTOR))
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


def _cut_notice(window: int, newest: _Unit | None, cut_chars: int) -> list[str]:
    if newest is None or not cut_chars:
        return []
    names = ", ".join(dict.fromkeys(call.name for call in newest.messages[0].tool_calls))
    return [
        _(
            "Le dernier appel d'outil ({names}) et son résultat ont été coupés de {chars} "
            "caractères pour tenir dans le contexte de {window} jetons : le modèle n'en voit "
            "que le début."
        ).format(names=names, chars=f"{cut_chars:,}".replace(",", " "), window=window)
    ]


def _has_calls(unit: _Unit) -> bool:
    return unit.messages[0].role == "assistant" and bool(unit.messages[0].tool_calls)


def _fill_newest_first(units: list[_Unit], base: int, fits: Callable[[int], bool]) -> list[_Unit]:
    """The protected units, plus the newest others that fit (a contiguous run back in time)."""
    total = base
    cut = 0  # units before this index are dropped
    for index in range(len(units) - 1, -1, -1):
        unit = units[index]
        if unit.protected:
            continue
        if not fits(total + unit.cost):
            cut = index + 1
            break
        total += unit.cost
    kept = [unit for i, unit in enumerate(units) if unit.protected or i >= cut]
    # a conversation that now opens with an answer has lost its question: drop that too
    while kept and not kept[0].protected and kept[0].messages[0].role != "user" and cut:
        kept.pop(0)
    return kept


def _source_costs(specs: list[ToolSpec], costs: list[int]) -> list[tuple[str, int]]:
    """MCP sources by total cost, most expensive first (native tools are never dropped)."""
    totals: dict[str, int] = {}
    for spec, cost in zip(specs, costs, strict=True):
        if spec.source != "native":
            totals[spec.source] = totals.get(spec.source, 0) + cost
    return sorted(totals.items(), key=lambda item: (-item[1], item[0]))


def _tools_cost(specs: list[ToolSpec], costs: list[int], sources: set[str]) -> int:
    kept = [cost for spec, cost in zip(specs, costs, strict=True) if spec.source in sources]
    return TOOLS_PREAMBLE + sum(kept) if kept else 0


def _notices(window: int, dropped: int, sources: list[tuple[str, int]]) -> list[str]:
    notices = []
    if dropped:
        text = ngettext(
            "{count} message ancien n'a pas été envoyé au modèle (contexte de {window} jetons).",
            "{count} messages anciens n'ont pas été envoyés au modèle "
            "(contexte de {window} jetons).",
            dropped,
        )
        notices.append(text.format(count=dropped, window=window))
    for source, cost in sources:
        notices.append(
            _(
                "Les outils du serveur « {server} » (~{cost} jetons) n'ont pas été envoyés au "
                "modèle : ils ne tiennent pas dans le contexte de {window} jetons."
            ).format(server=source, cost=cost, window=window)
        )
    return notices
