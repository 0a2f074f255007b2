"""A scripted HTTP server that speaks the OpenAI Chat Completions API (as vLLM serves it).

Like tests/fakes/ollama_server.py: a background thread on 127.0.0.1, real HTTP and real SSE,
every request recorded. Shapes from the OpenAI API reference (chat completion chunk object,
error codes) and vLLM's protocol.py (ModelCard with `max_model_len`, ErrorResponse):

- `GET /v1/models` -> `{"object": "list", "data": [{"id", "object": "model", "created",
  "owned_by": "vllm", "root", "parent": null, "max_model_len", "permission": []}]}`;
- `POST /v1/chat/completions` with `stream: true` -> `text/event-stream` of `data: {chunk}`
  events, then `data: [DONE]`. A chunk is `{"id", "object": "chat.completion.chunk",
  "created", "model", "choices": [{"index": 0, "delta": {...}, "logprobs": null,
  "finish_reason": null}]}`; the first delta carries `role`; tool calls stream as a first
  piece `{"index", "id", "type": "function", "function": {"name", "arguments": ""}}` then
  pieces `{"index", "function": {"arguments": "<piece>"}}`; with `stream_options:
  {"include_usage": true}` a last chunk has `choices: []` and `usage`;
- errors: `{"error": {"message", "type", "param", "code"}}`;
- an image (an `image_url` content part) for a model that is not multimodal: vLLM answers
  400 `{"object": "error", "message": "<model> is not a multimodal model None", "type":
  "BadRequestError", "param": null, "code": 400}` (as reported in vllm-project/vllm#23402
  and in the field); `vision_models` says which models take images (None: all of them).

    with FakeOpenAI(models=("m",)) as server:
        server.script(Reply.text("Bon", "jour"), Reply.tool("write_file", {...}, pieces=4))
        ... the client against server.url (which ends in /v1) ...
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.embeddings import inputs_of, openai_embeddings
from tests.fakes.http_fake import QuietServer, ServedFake, TrackedHandler

DEFAULT_MODELS = ("Qwen/Qwen2.5-Coder-7B-Instruct",)


@dataclass
class Call:
    """One tool call of a reply; its JSON arguments stream in `pieces` deltas."""

    name: str
    arguments: Any
    pieces: int = 3

    def argument_pieces(self) -> list[str]:
        text = self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments)
        size = max(1, -(-len(text) // self.pieces))
        return [text[i : i + size] for i in range(0, len(text), size)] or [""]


@dataclass
class Reply:
    """One scripted answer to a /v1/chat/completions request."""

    tokens: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    reasoning_field: str = "reasoning_content"  # vLLM 0.11+ sends "reasoning"
    calls: list[Call] = field(default_factory=list)
    finish_reason: str | None = None  # default: "tool_calls" with calls, else "stop"
    status: int = 200
    error: Any = None  # the body's `error` for a status != 200, or an error event mid-stream
    empty: bool = False  # 200 with an empty body (llama-cpp-python with streamed tools)
    cut_after: int | None = None  # drop the connection after this many content events
    no_done: bool = False  # end the body cleanly without finish_reason nor [DONE]
    gate: threading.Event | None = None  # after the first event, wait for it
    # faults no real server sends on purpose: a `data:` line that is no JSON after this
    # many tokens, or a line that never ends (written until the client hangs up)
    garbage_after: int | None = None
    endless_after: int | None = None
    prompt_tokens: int = 42
    usage: bool = True  # False: no usage chunk even when asked (a server that never sends it)
    ignores_max_tokens: bool = False  # llama.cpp, vLLM and LM Studio honour `max_tokens`

    @classmethod
    def text(cls, *tokens: str, **kwargs: Any) -> Reply:
        return cls(tokens=list(tokens), **kwargs)

    @classmethod
    def tool(cls, name: str, arguments: Any, *, pieces: int = 3, **kwargs: Any) -> Reply:
        return cls(calls=[Call(name, arguments, pieces)], **kwargs)

    @classmethod
    def http_error(cls, status: int, message: str, type_: str, code: Any) -> Reply:
        error = {"message": message, "type": type_, "param": None, "code": code}
        return cls(status=status, error=error)

    @classmethod
    def overflow(cls, n_ctx: int, requested: int, messages: int) -> Reply:
        """vLLM's answer to a prompt longer than --max-model-len."""
        return cls.http_error(
            400,
            f"This model's maximum context length is {n_ctx} tokens. However, you requested "
            f"{requested} tokens ({messages} in the messages, {requested - messages} in the "
            "completion). Please reduce the length of the messages or completion.",
            "BadRequestError",
            400,
        )


Script = Reply | Callable[[dict[str, Any]], Reply]


class FakeOpenAI(ServedFake):
    """The server. Use as a context manager or call start()/stop()."""

    def __init__(
        self,
        models: tuple[str, ...] = DEFAULT_MODELS,
        *,
        max_model_len: int | None = 32768,
        api_key: str = "",
        port: int = 0,
        default: Reply | None = None,
        vision_models: tuple[str, ...] | None = None,
    ) -> None:
        self.models = list(models)
        self.vision_models = vision_models
        # /v1/embeddings answers for these (tests.fakes.embeddings), with vectors of this size
        self.embedding_models: set[str] = set()
        self.embedding_dim = 16
        self.max_model_len = max_model_len
        self.api_key = api_key  # when set, a request without `Bearer <api_key>` gets 401
        self.default = default or Reply.text("(pas de réponse scriptée)")
        self.requests: list[tuple[str, str, Any, dict[str, str]]] = []
        self.peers: list[tuple[str, int]] = []  # the client's address of each request
        self._scripts: list[Script] = []
        super().__init__()
        self._server = QuietServer(("127.0.0.1", port), _handler_for(self))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, *replies: Script) -> None:
        with self._lock:
            self._scripts.extend(replies)

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return [body for _, path, body, _h in self.requests if path.endswith("/completions")]

    @property
    def headers(self) -> list[dict[str, str]]:
        with self._lock:
            return [h for *_rest, h in self.requests]

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            script = self._scripts.pop(0) if self._scripts else self.default
        return script(body) if callable(script) else script


def _has_image(body: dict[str, Any]) -> bool:
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, list) and any(p.get("type") == "image_url" for p in content):
            return True
    return False


def _not_multimodal(model: str) -> dict[str, Any]:
    return {
        "object": "error",
        "message": f"{model} is not a multimodal model None",
        "type": "BadRequestError",
        "param": None,
        "code": 400,
    }


def _handler_for(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(TrackedHandler):
        def _record(self, body: Any) -> None:
            with fake._lock:
                fake.requests.append(("", self.path, body, dict(self.headers.items())))
                fake.peers.append(self.client_address)

        def _authorized(self) -> bool:
            if not fake.api_key or self.headers.get("Authorization") == f"Bearer {fake.api_key}":
                return True
            given = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
            self._json(
                401,
                {
                    "error": {
                        "message": f"Incorrect API key provided: {given[:3]}***. You can "
                        "find your API key at https://platform.openai.com/account/api-keys.",
                        "type": "invalid_request_error",
                        "param": None,
                        "code": "invalid_api_key",
                    }
                },
            )
            return False

        def do_GET(self) -> None:
            self._record(None)
            if not self._authorized():
                return
            if self.path == "/v1/models":
                self._json(200, {"object": "list", "data": [_card(fake, m) for m in fake.models]})
            else:
                self._json(404, {"detail": "Not Found"})  # FastAPI's answer to a wrong path

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            self._record(body)
            if not self._authorized():
                return
            if self.path == "/v1/embeddings":
                self._embeddings(body)
                return
            if self.path != "/v1/chat/completions":
                self._json(404, {"detail": "Not Found"})
                return
            model = body.get("model")
            if model not in fake.models:
                error = {
                    "message": f"The model `{model}` does not exist.",
                    "type": "NotFoundError",
                    "param": None,
                    "code": 404,
                }
                self._json(404, {"error": error})
                return
            refused = fake.vision_models is not None and model not in fake.vision_models
            if refused and _has_image(body):
                self._json(400, _not_multimodal(str(model)))
                return
            reply = _capped(fake._next_reply(body), body)
            if reply.status != 200:
                self._json(reply.status, {"error": reply.error})
                return
            self._stream(str(model), reply, body)

        # --- the stream ------------------------------------------------------------

        def _stream(self, model: str, reply: Reply, body: dict[str, Any]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            if reply.empty:
                self._end_chunks()
                return
            chunk = _chunker(model)
            self._event(chunk({"role": "assistant", "content": ""}))
            self._wait(reply)
            for piece in reply.reasoning:
                self._event(chunk({reply.reasoning_field: piece}))
            for index, token in enumerate(reply.tokens):
                if reply.cut_after is not None and index >= reply.cut_after:
                    self._cut()
                    return
                if index == reply.garbage_after:
                    self._data('{"choices": [{"delta": {"content": "cut')
                if index == reply.endless_after:
                    self._endless()
                    return
                self._event(chunk({"content": token}))
            if reply.cut_after is not None:
                self._cut()
                return
            if reply.error is not None:
                self._event({"error": reply.error})
                self._end_chunks()
                return
            for number, call in enumerate(reply.calls):
                self._stream_call(chunk, number, call)
            if reply.no_done:
                self._end_chunks()
                return
            reason = reply.finish_reason or ("tool_calls" if reply.calls else "stop")
            self._event(chunk({}, finish_reason=reason))
            if reply.usage and (body.get("stream_options") or {}).get("include_usage"):
                completion = len(reply.tokens) + len(reply.reasoning) + len(reply.calls)
                usage = {
                    "prompt_tokens": reply.prompt_tokens,
                    "completion_tokens": completion,
                    "total_tokens": reply.prompt_tokens + completion,
                }
                self._event({**chunk(None), "choices": [], "usage": usage})
            self._data("[DONE]")
            self._end_chunks()

        def _stream_call(
            self, chunk: Callable[..., dict[str, Any]], number: int, call: Call
        ) -> None:
            first = {
                "index": number,
                "id": f"chatcmpl-tool-{number:04d}",
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }
            self._event(chunk({"tool_calls": [first]}))
            for piece in call.argument_pieces():
                self._event(
                    chunk({"tool_calls": [{"index": number, "function": {"arguments": piece}}]})
                )

        def _wait(self, reply: Reply) -> None:
            if reply.gate is not None:
                reply.gate.wait(timeout=60)

        def _event(self, data: Any) -> None:
            self._data(json.dumps(data))

        def _data(self, text: str) -> None:
            payload = f"data: {text}\n\n".encode()
            self.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
            self.wfile.flush()

        def _endless(self) -> None:
            """One `data:` line that never ends: written until the client hangs up."""
            block = b"x" * 65536
            with contextlib.suppress(OSError):
                self._chunk(b'data: {"choices": [{"delta": {"content": "')
                while True:
                    self._chunk(block)

        def _chunk(self, payload: bytes) -> None:
            self.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
            self.wfile.flush()

        def _end_chunks(self) -> None:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        def _cut(self) -> None:
            self.wfile.flush()
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)

        def _embeddings(self, body: dict[str, Any]) -> None:
            model = str(body.get("model"))
            texts = inputs_of(body)
            if model not in fake.embedding_models or texts is None:
                error = {
                    "message": f"The model `{model}` does not exist.",
                    "type": "NotFoundError",
                    "param": None,
                    "code": 404,
                }
                self._json(404, {"error": error})
                return
            self._json(200, openai_embeddings(model, texts, fake.embedding_dim))

        def _json(self, status: int, data: Any) -> None:
            payload = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


def _card(fake: FakeOpenAI, model: str) -> dict[str, Any]:
    return {
        "id": model,
        "object": "model",
        "created": int(time.time()),
        "owned_by": "vllm",
        "root": model,
        "parent": None,
        "max_model_len": fake.max_model_len,
        "permission": [],
    }


def _chunker(model: str) -> Callable[..., dict[str, Any]]:
    created = int(time.time())

    def chunk(delta: dict[str, Any] | None, finish_reason: str | None = None) -> dict[str, Any]:
        base: dict[str, Any] = {
            "id": "chatcmpl-0123456789abcdef",
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
        }
        if delta is not None:
            base["choices"] = [
                {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
            ]
        return base

    return chunk


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--reply", default="Bonjour ! Je suis un serveur vLLM simulé.")
    args = parser.parse_args()
    words = [word + " " for word in args.reply.split(" ")]
    server = FakeOpenAI(port=args.port, default=Reply.text(*words))
    print(f"fake OpenAI-compatible server on {server.url}", flush=True)
    server._server.serve_forever()


if __name__ == "__main__":
    main()


def _capped(reply: Reply, body: dict[str, Any]) -> Reply:
    """The reply ended at `max_tokens` completion tokens (reasoning counts too): cut there,
    no tool call, finish_reason "length" (the API reference's reason for the cap)."""
    cap = body.get("max_tokens")
    produced = len(reply.reasoning) + len(reply.tokens)
    if reply.ignores_max_tokens or not isinstance(cap, int) or cap <= 0 or produced <= cap:
        return reply
    reasoning = reply.reasoning[:cap]
    tokens = reply.tokens[: cap - len(reasoning)]
    return dataclasses.replace(
        reply, reasoning=reasoning, tokens=tokens, calls=[], finish_reason="length"
    )
