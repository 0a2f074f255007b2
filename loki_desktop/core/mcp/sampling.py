"""A server's sampling request answered by the person's own local model, after its policy.

The policy is per server (always / ask / never, default ask; `ServerConfig.sampling`). The
model is the one the person chats with (`ChatBackend` + model name given by the caller):
`modelPreferences` are hints only and change nothing, `maxTokens` bounds the answer
(`num_predict`), `systemPrompt`, `temperature` and `stopSequences` are passed on. The
model's reasoning (thinking models) is not part of the answer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from loki_desktop.core.i18n import _
from loki_desktop.core.mcp.host import McpHost, SamplingPolicy, SamplingReport, SamplingRequest
from loki_desktop.core.ports import BackendError, ChatBackend

log = logging.getLogger(__name__)

MAX_SAMPLING_TOKENS = 4096  # a server asking more gets this much: it is the person's machine

# the backend and model of the moment (the window's picker may change them between requests)
ModelSource = Callable[[], tuple[ChatBackend, str]]


class Sampler:
    """Answers `SamplingRequest`s: policy, approval, the model, and the report to the host."""

    def __init__(self, model: ModelSource, host: McpHost | None) -> None:
        self.model = model
        self.host = host

    async def answer(self, request: SamplingRequest, policy: SamplingPolicy) -> SamplingReport:
        return self._reported(await self._answer(request, policy))

    def refuse(self, request: SamplingRequest, reason: str) -> SamplingReport:
        """A request refused before any policy applies (`reason`: one sentence)."""
        return self._reported(SamplingReport(request, refused=reason))

    def _reported(self, report: SamplingReport) -> SamplingReport:
        if self.host is not None:
            try:
                self.host.sampling_done(report)
            except Exception:  # a window bug must not fail the server's request
                log.exception("showing a sampling report failed")
        return report

    async def _answer(self, request: SamplingRequest, policy: SamplingPolicy) -> SamplingReport:
        name = request.server_label
        if policy == "never":
            return SamplingReport(
                request,
                refused=_(
                    "Le serveur « {name} » a demandé une réponse à votre modèle ; ses "
                    "demandes sont refusées (réglage : jamais)."
                ).format(name=name),
            )
        if policy == "ask" and (self.host is None or not await self.host.approve_sampling(request)):
            return SamplingReport(
                request,
                refused=_("Vous avez refusé que « {name} » utilise votre modèle.").format(
                    name=name
                ),
            )
        backend, model = self.model()
        if not model:
            return SamplingReport(
                request,
                refused=_("Aucun modèle n'est choisi pour répondre à « {name} ».").format(
                    name=name
                ),
            )
        try:
            return await self._generate(request, backend, model)
        except BackendError as exc:
            return SamplingReport(request, model=model, refused=str(exc))

    @staticmethod
    async def _generate(
        request: SamplingRequest, backend: ChatBackend, model: str
    ) -> SamplingReport:
        messages: list[dict[str, Any]] = []
        if request.system_prompt:
            messages.append({"role": "system", "content": request.system_prompt})
        messages += [{"role": role, "content": text} for role, text in request.messages]
        options: dict[str, Any] = {
            "num_predict": max(1, min(request.max_tokens, MAX_SAMPLING_TOKENS))
        }
        if request.temperature is not None:
            options["temperature"] = request.temperature
        if request.stop:
            options["stop"] = list(request.stop)
        parts: list[str] = []
        reason: str | None = None
        async for chunk in backend.chat(model=model, messages=messages, tools=[], options=options):
            parts.append(chunk.content)
            if chunk.done:
                reason = chunk.done_reason
        stop = "maxTokens" if reason == "length" else "endTurn"
        return SamplingReport(request, answer="".join(parts).strip(), model=model, stop_reason=stop)
