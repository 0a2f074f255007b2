"""ChatBackend over Ollama's HTTP API (one httpx client, our NDJSON reading), errors as sentences.

Not the `ollama` package: its `AsyncClient.chat` validates tools through a pydantic model
that keeps only type/items/description/enum of each property (nested object schemas, common
in MCP tools, would reach the model empty) and its response model rejects tool arguments
sent as a JSON string; going around that needed its private `_request`. Importing it also
builds a module-level client that loads the CA store. The API is a few JSON endpoints and
one NDJSON stream: https://github.com/ollama/ollama/blob/main/docs/api.md
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Any

import httpx

from loki_desktop import __version__
from loki_desktop.core.i18n import _
from loki_desktop.core.llm.context_size import OLLAMA_DEFAULT_CONTEXT
from loki_desktop.core.llm.lines import (
    LineTooLong,
    capped_lines,
    skipped_sentence,
    too_long_sentence,
)
from loki_desktop.core.llm.profiles import parse_profile
from loki_desktop.core.llm.pull import pull_error_sentence
from loki_desktop.core.llm.server_errors import answered_error, error_text, error_value
from loki_desktop.core.llm.silence import SilenceExpired, SilenceWatchdog
from loki_desktop.core.loopback import direct_mounts
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
# turn. Silence is allowed long: loading a 14B model from disk can take a minute or more
# before the first line. The silence limit is a watchdog (see silence.py), not httpx's read
# timeout, which would put one loop timer on every streamed chunk.
CONNECT_TIMEOUT_S = 3.0
SILENCE_LIMIT_S = 600.0
SLICE_S = 0.02  # longest run of streamed lines handled before the loop gets a turn


def unreachable_message(host: str) -> str:
    return _(
        "Ollama est injoignable à {host}. Démarrez-le avec « ollama serve » "
        "(ou installez-le depuis https://ollama.com/download), puis réessayez."
    ).format(host=host)


def http_client(host: str) -> httpx.AsyncClient:
    """The one HTTP client of a backend (connection pool, headers, timeouts)."""
    headers = {"User-Agent": f"loki-desktop/{__version__}", "Accept": "application/json"}
    if api_key := os.environ.get("OLLAMA_API_KEY"):  # as the official client does (ollama.com)
        headers["Authorization"] = f"Bearer {api_key}"
    return httpx.AsyncClient(
        base_url=host,
        headers=headers,
        # only connecting has an httpx timeout: the others would arm a timer per socket
        # operation; the watchdog bounds the silence instead
        timeout=httpx.Timeout(None, connect=CONNECT_TIMEOUT_S),
        # Loading the CA store costs ~50-100 ms per client; a plain-http host (the usual
        # local Ollama) never does TLS, as redirects are not followed (the API has none).
        verify=host.startswith("https://"),
        follow_redirects=False,
        # loopback is reached directly even with HTTP(S)_PROXY set and no NO_PROXY
        mounts=direct_mounts(host),
    )


class OllamaResponseError(Exception):
    """The server answered with an error: an HTTP status, or an `{"error": ...}` line.
    `error` is the body's `error` as sent (a string, or an object from some fronts)."""

    def __init__(self, status: int, error: Any) -> None:
        super().__init__(error_text(error))
        self.status = status
        self.error = error


class OllamaBackend:
    """Talks to one Ollama server. Every failure surfaces as a BackendError subclass."""

    def __init__(self, host: str, *, silence_limit_s: float = SILENCE_LIMIT_S) -> None:
        self.host = host
        self._client = http_client(host)
        self._watchdog = SilenceWatchdog(silence_limit_s)

    async def close(self) -> None:
        await self._client.aclose()

    # --- transport ----------------------------------------------------------------------

    async def _request(self, method: str, path: str, body: Any = None) -> Any:
        """One JSON request and its JSON answer; OllamaResponseError on an error status."""
        with self._watchdog.watch():
            response = await self._client.request(method, path, json=body)
        if response.is_error:
            raise OllamaResponseError(response.status_code, error_value(response.text))
        return response.json()

    async def _stream(self, path: str, body: Any) -> AsyncGenerator[dict[str, Any], None]:
        """The objects of an NDJSON answer, one per line, as they arrive."""
        loop = asyncio.get_running_loop()
        with self._watchdog.watch() as silence:
            async with self._client.stream("POST", path, json=body) as response:
                if response.is_error:
                    await response.aread()
                    raise OllamaResponseError(response.status_code, error_value(response.text))
                lines = capped_lines(response.aiter_bytes())
                slice_began = loop.time()
                while True:
                    silence.waiting()
                    try:
                        line = await anext(lines)
                    except StopAsyncIteration:
                        break
                    silence.arrived()
                    if loop.time() - slice_began > SLICE_S:
                        # Lines read ahead are handed out without a real wait: when the
                        # server streams faster than the turn consumes, the whole backlog
                        # would run in one step of the loop and freeze the window meanwhile.
                        await asyncio.sleep(0)
                        slice_began = loop.time()
                    if not line.strip():
                        continue
                    part = _object(line)
                    if part is None:  # one garbage line: the valid ones around it count
                        yield {_SKIPPED: True}
                        continue
                    if error := part.get("error"):
                        raise OllamaResponseError(-1, error)
                    yield part

    # --- the API ------------------------------------------------------------------------

    async def list_models(self) -> list[ModelInfo]:
        try:
            answer = await self._request("GET", "/api/tags")
        except (httpx.TransportError, SilenceExpired):
            raise BackendUnreachable(unreachable_message(self.host)) from None
        except OllamaResponseError as exc:
            raise BackendError(_answered_error(exc)) from None
        except ValueError:  # not JSON: something else listens there
            raise BackendError(_("La réponse d'Ollama est illisible.")) from None
        models = []
        for entry in _dicts(answer.get("models") if isinstance(answer, dict) else None):
            details = entry.get("details") or {}
            models.append(
                ModelInfo(
                    name=str(entry.get("model") or entry.get("name") or ""),
                    size=int(entry.get("size") or 0),
                    parameter_size=str(details.get("parameter_size") or ""),
                )
            )
        return models

    async def context_length(self, model: str) -> int | None:
        """The longest context the model supports (/api/show), or None when the server does
        not say. Raises BackendUnreachable when the server cannot be asked.

        Not /api/ps: that reports the context the model is currently *loaded* with, which
        may be another client's smaller setting. The context a request really gets is
        decided in core.llm.context_size from this profile.
        """
        return (await self.model_profile(model)).context_length

    async def model_profile(self, model: str) -> ModelProfile:
        """What the model can do (/api/show); `ModelProfile.assumed` when the server cannot
        describe it. Raises BackendUnreachable when nothing answers."""
        try:
            shown = await self._request("POST", "/api/show", {"model": model})
        except (httpx.TransportError, SilenceExpired):
            raise BackendUnreachable(unreachable_message(self.host)) from None
        except (OllamaResponseError, ValueError):
            profile = ModelProfile.assumed(model)
        else:
            profile = parse_profile(model, shown)
        # what Ollama runs the model with when a request sends no num_ctx
        return dataclasses.replace(profile, server_ctx=OLLAMA_DEFAULT_CONTEXT)

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
        seen_done = skipped = False
        try:
            # closed with this generator: a reply stopped early (a cap, the repetition guard,
            # Stop) closes its HTTP stream now, inside the loop, not in a late finalizer
            async with contextlib.aclosing(self._stream("/api/chat", payload)) as parts:
                async for part in parts:
                    if _SKIPPED in part:
                        if not skipped:
                            yield ChatChunk(notice=skipped_sentence(self.host))
                        skipped = True
                        continue
                    chunk = chunk_of(part)
                    seen_done = seen_done or chunk.done
                    yield chunk
        except LineTooLong as exc:
            raise StreamCut(too_long_sentence(self.host, exc.limit)) from None
        except (httpx.ConnectError, httpx.ConnectTimeout):
            raise BackendUnreachable(unreachable_message(self.host)) from None
        except OllamaResponseError as exc:
            if exc.status == 404 or "not found" in error_text(exc.error).lower():
                raise ModelNotFound(await self._model_not_found_message(model)) from None
            raise answered_error(exc.status, exc.error) from None
        except SilenceExpired:
            raise StreamCut(
                _("Ollama n'a rien envoyé pendant {n} s : la réponse est abandonnée.").format(
                    n=f"{self._watchdog.limit_s:g}"
                )
            ) from None
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

    # --- managing models (Réglages → Modèles, `models pull|rm`) -------------------------

    async def pull(self, model: str) -> AsyncGenerator[dict[str, Any], None]:
        """The progress lines of `/api/pull` (see core.llm.pull); BackendError with a
        sentence on a failure. Closing the iterator cancels the pull; Ollama keeps what
        it downloaded and a later pull of the same name resumes from there."""
        try:
            pulled = self._stream("/api/pull", {"model": model, "stream": True})
            async with contextlib.aclosing(pulled) as parts:
                async for part in parts:
                    if _SKIPPED not in part:
                        yield part
        except LineTooLong as exc:
            raise StreamCut(too_long_sentence(self.host, exc.limit)) from None
        except (httpx.ConnectError, httpx.ConnectTimeout):
            raise BackendUnreachable(unreachable_message(self.host)) from None
        except OllamaResponseError as exc:
            raise BackendError(pull_error_sentence(error_text(exc.error), model)) from None
        except SilenceExpired:
            raise BackendError(
                _("Ollama ne donne plus de nouvelles du téléchargement de « {model} ».").format(
                    model=model
                )
            ) from None
        except (httpx.TransportError, ValueError) as exc:
            raise StreamCut(
                _("Le téléchargement a été coupé en cours de route ({error}).").format(
                    error=type(exc).__name__
                )
            ) from None

    async def delete(self, model: str) -> None:
        """Remove a model from the server; ModelNotFound when it has no such model."""
        try:
            with self._watchdog.watch():
                response = await self._client.request(
                    "DELETE", "/api/delete", json={"model": model}
                )
        except (httpx.TransportError, SilenceExpired):
            raise BackendUnreachable(unreachable_message(self.host)) from None
        if response.status_code == 404:
            raise ModelNotFound(
                _("Le modèle « {model} » n'est pas installé sur {host}.").format(
                    model=model, host=self.host
                )
            )
        if response.is_error:
            raise BackendError(
                _answered_error(
                    OllamaResponseError(response.status_code, error_value(response.text))
                )
            )


# The mark `_stream` yields for a line that is no JSON object (skipped, told once).
_SKIPPED = "\x00skipped"


def _object(line: str) -> dict[str, Any] | None:
    try:
        part = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return part if isinstance(part, dict) else None


def _answered_error(exc: OllamaResponseError) -> str:
    return _("Ollama a répondu par une erreur ({status}) : {error}").format(
        status=exc.status, error=error_text(exc.error)
    )


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def chunk_of(part: dict[str, Any]) -> ChatChunk:
    """One NDJSON object of /api/chat as a ChatChunk; fields of another shape are ignored."""
    message = part.get("message")
    message = message if isinstance(message, dict) else {}
    calls = []
    listed = message.get("tool_calls")
    for call in listed if isinstance(listed, list) else []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            calls.append(NativeToolCall(str(function.get("name", "")), function.get("arguments")))
    reason = part.get("done_reason")
    return ChatChunk(
        content=_text(message.get("content")),
        thinking=_text(message.get("thinking")),
        tool_calls=tuple(calls),
        done=part.get("done") is True,
        done_reason=reason if isinstance(reason, str) else None,
        prompt_eval_count=_count(part.get("prompt_eval_count")),
        eval_count=_count(part.get("eval_count")),
        eval_duration_ns=_count(part.get("eval_duration")),
    )


def parse_line(line: str) -> ChatChunk | None:
    """One line of an /api/chat stream: its chunk, None for a line that is no JSON object.
    An `{"error": ...}` line raises OllamaResponseError."""
    part = _object(line)
    if part is None:
        return None
    if error := part.get("error"):
        raise OllamaResponseError(-1, error)
    return chunk_of(part)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _count(value: Any) -> int | None:
    """A count or a duration as the server sent it: an int, else unknown."""
    return value if type(value) is int and value >= 0 else None
