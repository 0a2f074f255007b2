"""ChatBackend over the official `ollama.AsyncClient`, with errors turned into sentences."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

import httpx
import ollama

from loki_desktop.core.i18n import _
from loki_desktop.core.llm.profiles import parse_profile
from loki_desktop.core.llm.server_errors import answered_error, error_text
from loki_desktop.core.ports import (
    BackendError,
    BackendUnreachable,
    ChatChunk,
    ModelInfo,
    ModelNotFound,
    ModelProfile,
    NativeToolCall,
    StreamCut,
    ThinkValue,
)

# Connecting is instant on a machine with Ollama; a black-holed host must not hang the
# turn. Reading waits long: loading a 14B model from disk can take a minute or more.
CONNECT_TIMEOUT_S = 3.0
READ_TIMEOUT_S = 600.0


def unreachable_message(host: str) -> str:
    return _(
        "Ollama est injoignable à {host}. Démarrez-le avec « ollama serve » "
        "(ou installez-le depuis https://ollama.com/download), puis réessayez."
    ).format(host=host)


class OllamaBackend:
    """Talks to one Ollama server. Every failure surfaces as a BackendError subclass."""

    def __init__(self, host: str) -> None:
        self.host = host
        timeout = httpx.Timeout(READ_TIMEOUT_S, connect=CONNECT_TIMEOUT_S)
        self._client = ollama.AsyncClient(host=host, timeout=timeout)

    async def close(self) -> None:
        await self._client._client.aclose()

    async def list_models(self) -> list[ModelInfo]:
        try:
            response = await self._client.list()
        except (ConnectionError, httpx.TransportError):
            raise BackendUnreachable(unreachable_message(self.host)) from None
        except ollama.ResponseError as exc:
            raise BackendError(
                _("Ollama a répondu par une erreur ({status}) : {error}").format(
                    status=exc.status_code, error=exc.error
                )
            ) from None
        models = []
        for entry in response.models:
            details = entry.details
            models.append(
                ModelInfo(
                    name=entry.model or "",
                    size=int(entry.size or 0),
                    parameter_size=(details.parameter_size or "") if details else "",
                )
            )
        return models

    async def context_length(self, model: str) -> int | None:
        """The longest context the model supports (/api/show), or None when the server does
        not say. Raises BackendUnreachable when the server cannot be asked.

        Not /api/ps: that reports the context the model is currently *loaded* with, which
        may be another client's smaller setting; we send our own `num_ctx` anyway.
        """
        return (await self.model_profile(model)).context_length

    async def model_profile(self, model: str) -> ModelProfile:
        """What the model can do (/api/show); `ModelProfile.assumed` when the server cannot
        describe it. Raises BackendUnreachable when nothing answers."""
        try:
            shown = await self._client._request(dict, "POST", "/api/show", json={"model": model})
        except (ConnectionError, httpx.TransportError):
            raise BackendUnreachable(unreachable_message(self.host)) from None
        except (ollama.ResponseError, ValueError):
            return ModelProfile.assumed(model)
        return parse_profile(model, shown)

    async def chat(
        self,
        *,
        model: str,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]],
        options: dict[str, Any],
        think: ThinkValue | None = None,
    ) -> AsyncIterator[ChatChunk]:
        payload: dict[str, Any] = {
            "model": model,
            "messages": list(messages),
            "stream": True,
            "options": options,
        }
        if tools:
            payload["tools"] = list(tools)
        if think is not None:
            payload["think"] = think
        seen_done = False
        try:
            # `AsyncClient.chat` validates tools through a pydantic model that keeps only
            # type/items/description/enum of each property: nested object schemas (common in
            # MCP tools) would reach the model empty. And its response model rejects tool
            # arguments sent as a JSON string. `_request` is the client's own transport,
            # streaming and NDJSON parsing; we give it the payload unchanged and read each
            # line as a plain dict.
            stream = await self._client._request(
                dict, "POST", "/api/chat", json=payload, stream=True
            )
            async for part in stream:
                chunk = _chunk(part)
                seen_done = seen_done or chunk.done
                yield chunk
        except (ConnectionError, httpx.ConnectError, httpx.ConnectTimeout):
            raise BackendUnreachable(unreachable_message(self.host)) from None
        except ollama.ResponseError as exc:
            if exc.status_code == 404 or "not found" in error_text(exc.error).lower():
                raise ModelNotFound(await self._model_not_found_message(model)) from None
            raise answered_error(exc.status_code, exc.error) from None
        except (httpx.TransportError, ValueError) as exc:
            # ValueError: a line of the stream that is not JSON (the connection was cut)
            raise StreamCut(
                _("La réponse d'Ollama a été coupée en cours de route ({error}).").format(
                    error=type(exc).__name__
                )
            ) from None
        if not seen_done:
            raise StreamCut(_("La réponse d'Ollama s'est arrêtée avant la fin."))

    async def _model_not_found_message(self, model: str) -> str:
        try:
            names = [m.name for m in await self.list_models()]
        except BackendError:
            names = []
        available = ", ".join(names) if names else _("aucun")
        return _(
            "Le modèle « {model} » est introuvable sur {host}. Modèles disponibles : "
            "{available}. Téléchargez-le avec « ollama pull {model} »."
        ).format(model=model, host=self.host, available=available)


def _chunk(part: dict[str, Any]) -> ChatChunk:
    message = part.get("message") or {}
    calls = []
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            calls.append(NativeToolCall(str(function.get("name", "")), function.get("arguments")))
    return ChatChunk(
        content=str(message.get("content") or ""),
        thinking=str(message.get("thinking") or ""),
        tool_calls=tuple(calls),
        done=bool(part.get("done")),
        done_reason=part.get("done_reason"),
        prompt_eval_count=part.get("prompt_eval_count"),
        eval_count=part.get("eval_count"),
    )
