"""ChatBackend over an OpenAI-compatible Chat Completions API (vLLM, llama.cpp, LM Studio, SGLang…).

httpx directly, not the `openai` package: the core already holds one httpx client per server
with the loopback mounts and the silence watchdog (core.llm.silence), the SSE stream is a few
lines to read, and the package would add ~0.3 s of imports and a second HTTP stack; the bench
(bench/openai_first_token.py) compares the first token with the raw `openai` client.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from typing import Any

import httpx

from loki_desktop import __version__
from loki_desktop.core.i18n import _
from loki_desktop.core.llm import openai_errors as errors
from loki_desktop.core.llm.caps import NUM_PREDICT
from loki_desktop.core.llm.lines import LineTooLong, capped_lines, skipped_sentence
from loki_desktop.core.llm.openai_stream import DeltaAssembler, StreamError, sse_data
from loki_desktop.core.llm.openai_wire import request_body
from loki_desktop.core.llm.silence import SilenceExpired, SilenceWatchdog
from loki_desktop.core.loopback import direct_mounts
from loki_desktop.core.ports import (
    BackendError,
    ChatChunk,
    ModelInfo,
    ModelProfile,
    ThinkValue,
)

CONNECT_TIMEOUT_S = 3.0
SILENCE_LIMIT_S = 600.0  # a big model on a busy cluster may queue the request a long time
SLICE_S = 0.02  # longest run of streamed events handled before the loop gets a turn
MODELS_FRESH_S = 30.0  # /models is asked again after this (a server may load another model)
# The server cannot say what a model does: tools are tried natively (a refusal falls back to
# tools described in the prompt); images only once the server accepted one for the model
# (accepts_images asks it once). Reasoning is shown whenever the server streams it.
OPENAI_CAPABILITIES = frozenset({"completion", "tools"})
# a 1×1 PNG: what accepts_images sends (the smallest image any vision model takes)
PIXEL_PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5"
    "ErkJggg=="
)


class OpenAIBackend:
    """Talks to one OpenAI-compatible server. Every failure is a BackendError with a sentence
    that names the server (`label`)."""

    def __init__(
        self,
        host: str,
        *,
        api_key: str = "",
        label: str = "",
        context_lengths: Mapping[str, int] | None = None,
        silence_limit_s: float = SILENCE_LIMIT_S,
        fold_system: bool = False,
    ) -> None:
        self.host = host.rstrip("/")
        self.label = f"« {label} » ({self.host})" if label else self.host
        self.context_lengths = dict(context_lengths or {})
        # the server setting "folded into the first message" (core.model_servers)
        self.fold_system = fold_system
        self._client = _http_client(self.host, api_key)
        self._watchdog = SilenceWatchdog(silence_limit_s)
        self._takes_images: dict[str, bool] = {}  # the server's answer, per model (asked once)
        self._models: tuple[float, dict[str, dict[str, Any]]] | None = None

    async def close(self) -> None:
        await self._client.aclose()

    # --- models ------------------------------------------------------------------------

    async def _model_cards(self) -> dict[str, dict[str, Any]]:
        """/models by id (asked again after MODELS_FRESH_S)."""
        now = time.monotonic()
        if self._models is not None and now - self._models[0] < MODELS_FRESH_S:
            return self._models[1]
        try:
            with self._watchdog.watch():
                response = await self._client.get("/models")
        except (httpx.TransportError, SilenceExpired):
            raise errors.unreachable(self.label) from None
        if response.status_code == 404:
            raise errors.no_api_here(self.label, 404)
        if response.is_error:
            raise errors.answered(self.label, response.status_code, errors.error_of(response.text))
        try:
            data = response.json().get("data")
        except (ValueError, AttributeError):
            raise errors.no_api_here(self.label, response.status_code) from None
        cards = {
            str(card["id"]): card
            for card in (data if isinstance(data, list) else [])
            if isinstance(card, dict) and card.get("id")
        }
        self._models = (now, cards)
        return cards

    async def list_models(self) -> list[ModelInfo]:
        cards = await self._model_cards()
        return [
            ModelInfo(name=name, context_length=self._length(name, card))
            for name, card in cards.items()
        ]

    def _length(self, name: str, card: dict[str, Any] | None) -> int | None:
        """The per-model setting, else what the server says (vLLM's `max_model_len`;
        `context_length` from some fronts), else None."""
        if name in self.context_lengths:
            return self.context_lengths[name]
        for key in ("max_model_len", "context_length", "max_context_length"):
            value = card.get(key) if card else None
            if type(value) is int and value > 0:
                return value
        return None

    async def context_length(self, model: str) -> int | None:
        return (await self.model_profile(model)).context_length

    async def model_profile(self, model: str) -> ModelProfile:
        cards = await self._model_cards()
        length = self._length(model, cards.get(model))
        seen = {"vision"} if self._takes_images.get(model) else set()
        return ModelProfile(
            name=model,
            capabilities=OPENAI_CAPABILITIES | seen,
            context_length=length,
            known=False,
            server_ctx=length,  # such a server runs each model with one context of its own
            # the template cannot be seen: only the server setting says it drops the system
            system_slot=False if self.fold_system else None,
        )

    async def accepts_images(self, model: str) -> bool:
        """Whether the server takes an image for `model`: asked once (a one-token request
        with a 1×1 picture), the answer kept. A server that cannot be reached is not an
        answer: it is asked again next time."""
        if model not in self._takes_images:
            body = request_body(model=model, messages=[_pixel_message()], tools=[], think=None)
            body["max_tokens"] = 1
            try:
                async with self._client.stream("POST", "/chat/completions", json=body) as reply:
                    self._takes_images[model] = not reply.is_error
            except httpx.HTTPError:
                return False
        return self._takes_images[model]

    # --- chat --------------------------------------------------------------------------

    async def chat(
        self,
        *,
        model: str,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]],
        options: dict[str, Any],
        think: ThinkValue | None = None,
    ) -> AsyncIterator[ChatChunk]:
        """Stream one reply. Of `options` only the length cap is sent (`num_predict` as
        `max_tokens`); num_ctx is not: the server runs the model with its own context, the
        budget learns it from /models or an overflow."""
        cap = options.get(NUM_PREDICT)
        body = request_body(
            model=model,
            messages=messages,
            tools=tools,
            think=think,
            max_tokens=cap if isinstance(cap, int) else 0,
        )
        assembler = DeltaAssembler()
        skipped = 0
        try:
            # closed with this generator (a reply stopped early closes its stream now)
            async with contextlib.aclosing(self._events(body, model)) as events:
                async for data in events:
                    try:
                        chunk = assembler.feed(data)
                    except (ValueError, RecursionError):  # one garbage event: the rest counts
                        skipped += 1
                        chunk = None
                        if skipped == 1:
                            chunk = ChatChunk(notice=skipped_sentence(self.label))
                    if chunk is not None:
                        yield chunk
        except LineTooLong as exc:
            raise errors.line_too_long(self.label, exc.limit) from None
        except (httpx.ConnectError, httpx.ConnectTimeout):
            raise errors.unreachable(self.label) from None
        except StreamError as exc:
            raise errors.answered(self.label, -1, exc.error) from None
        except SilenceExpired:
            raise errors.silent(self.label, self._watchdog.limit_s) from None
        except (httpx.TransportError, ValueError) as exc:
            raise errors.cut(self.label, type(exc).__name__) from None
        if assembler.events == 0:
            raise errors.empty_with_tools(self.label) if tools else errors.empty_stream(self.label)
        if not assembler.complete:
            raise errors.cut(self.label, _("fin du flux avant la fin de la réponse"))
        yield assembler.final()

    async def _events(self, body: dict[str, Any], model: str) -> AsyncGenerator[str, None]:
        """The data of each SSE event, as it arrives."""
        loop = asyncio.get_running_loop()
        with self._watchdog.watch() as silence:
            async with self._client.stream("POST", "/chat/completions", json=body) as response:
                if response.is_error:
                    await response.aread()
                    raise await self._refusal(response, model)
                lines = capped_lines(response.aiter_bytes())
                slice_began = loop.time()
                while True:
                    silence.waiting()
                    try:
                        line = await anext(lines)
                    except StopAsyncIteration:
                        return
                    silence.arrived()
                    if loop.time() - slice_began > SLICE_S:
                        await asyncio.sleep(0)  # see OllamaBackend._stream: keep the UI alive
                        slice_began = loop.time()
                    data = sse_data(line)
                    if data is not None and data.strip():
                        yield data
                    # after `[DONE]` the body is read to its end, as the openai client
                    # does: a response left unread closes its connection, and the next
                    # request would pay for a new one (~1-3 ms here, a TLS handshake remote)

    async def _refusal(self, response: httpx.Response, model: str) -> BackendError:
        error = errors.error_of(response.text)
        if response.status_code == 404:
            if not errors.is_model_error(error):
                return errors.no_api_here(self.label, 404)
            try:
                names = list(await self._model_cards())
            except BackendError:
                names = []
            return errors.model_not_found(self.label, model, names)
        return errors.answered(self.label, response.status_code, error)


def _pixel_message() -> dict[str, Any]:
    """A user message with one 1×1 image, in the shape chat() sends images (Ollama's)."""
    return {"role": "user", "content": "?", "images": [PIXEL_PNG]}


def _http_client(host: str, api_key: str) -> httpx.AsyncClient:
    headers = {"User-Agent": f"loki-desktop/{__version__}", "Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return httpx.AsyncClient(
        base_url=host,
        headers=headers,
        # only connecting has an httpx timeout; the watchdog bounds silence (see silence.py)
        timeout=httpx.Timeout(None, connect=CONNECT_TIMEOUT_S),
        verify=host.startswith("https://"),  # the CA store only where TLS is used
        follow_redirects=False,
        mounts=direct_mounts(host),
    )
