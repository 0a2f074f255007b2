"""A scripted HTTP server that speaks the Ollama API, for tests, benchmarks and screenshots.

It runs in a background thread on 127.0.0.1 (any port), so the real `ollama` client, real
HTTP and real NDJSON streaming are exercised, whatever event loop the test uses. Each
`/api/chat` request takes the next scripted `Reply`; every request is recorded so tests
can assert on what the client sent.

    with FakeOllama() as server:
        server.script(Reply.text("Bonjour"), Reply.tool("write_file", {"path": "a.py", ...}))
        ... run the client against server.url ...
        server.chat_requests[0]["messages"]

Run it alone (for the window or a benchmark): python -m tests.fakes.ollama_server --port 11434
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

from tests.fakes.embeddings import EmbedPlan, serve_ollama_embed
from tests.fakes.http_fake import QuietServer, QuietServer6, ServedFake, TrackedHandler
from tests.fakes.ollama_pull import PullPlan, serve_delete, serve_pull

DEFAULT_MODELS = ("qwen2.5-coder:7b", "llama3.1:8b")
# Templates as /api/show returns them (Go templates; docs/template.md). A chat template with
# a place for the system prompt (the Llama 3 example of the docs)...
CHAT_TEMPLATE = (
    "{{- if .System }}<|start_header_id|>system<|end_header_id|>\n\n{{ .System }}<|eot_id|>\n"
    "{{- end }}\n{{- range .Messages }}<|start_header_id|>{{ .Role }}<|end_header_id|>\n\n"
    "{{ .Content }}<|eot_id|>\n{{- end }}<|start_header_id|>assistant<|end_header_id|>\n\n"
)
# ... one with turns but no system slot (its messages loop prints users and assistants only)
NO_SYSTEM_TEMPLATE = (
    '{{- range .Messages }}{{- if eq .Role "user" }}<start_of_turn>user\n{{ .Content }}'
    '<end_of_turn>\n{{- else if eq .Role "assistant" }}<start_of_turn>model\n{{ .Content }}'
    "<end_of_turn>\n{{- end }}{{- end }}<start_of_turn>model\n"
)
# ... and the default of an imported model: the prompt as it is (a base model)
PROMPT_ONLY_TEMPLATE = "{{ .Prompt }}"
_UNSET: Any = object()


@dataclass
class ModelCard:
    """What /api/show says about one model, and how the chat endpoint treats it.

    Shapes from Ollama's docs (api, capabilities/thinking) and server/routes.go:
    `capabilities` is a list of words; `thinking` (`{"values": [...], "default": ...}`) is
    present only on models with thinking metadata; a chat with `tools` to a model without
    the `tools` capability answers 400 `<name> does not support tools`, and `think: true`
    to one without `thinking` answers 400 `"<model>" does not support thinking`.
    """

    capabilities: list[str] | None = field(default_factory=lambda: ["completion", "tools"])
    thinking: dict[str, Any] | None = None
    family: str = ""
    parameter_size: str = "7.6B"
    quantization: str = "Q4_K_M"
    context_length: Any = _UNSET  # the server's default when unset; None: not reported
    # /api/show `parameters`: the Modelfile's PARAMETER lines as "name value" lines
    # (docs.ollama.com/api-reference/show-model-details: "temperature 0.7\nnum_ctx 2048")
    parameters: str = ""
    show_status: int = 200  # /api/show fails with this status (and an {"error": ...} body)
    # the chat refuses tools even though /api/show lists them (old servers, wrong metadata)
    refuse_tools: bool = False
    refuse_thinking: bool = False  # the same for `think`
    template: str = CHAT_TEMPLATE  # /api/show's `template`

    @classmethod
    def thinker(cls, *levels: str, **kwargs: Any) -> ModelCard:
        """A thinking model: on/off (qwen3, deepseek-r1) or named levels (gpt-oss)."""
        values: list[Any] = list(levels) if levels else [True, False]
        default: Any = "medium" if "medium" in levels else (levels[0] if levels else True)
        return cls(
            capabilities=["completion", "tools", "thinking"],
            thinking={"values": values, "default": default},
            **kwargs,
        )

    @classmethod
    def no_tools(cls, *extra: str, **kwargs: Any) -> ModelCard:
        """A model whose template has no tool support (gemma3, phi4, llava)."""
        return cls(capabilities=["completion", *extra], **kwargs)

    @classmethod
    def embedding(cls) -> ModelCard:
        return cls(capabilities=["embedding"])


@dataclass
class Reply:
    """One scripted answer to a /api/chat request."""

    tokens: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)  # `message.thinking` pieces, first
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    token_delay: float = 0.0  # seconds between streamed lines
    # after the first streamed line, wait for this (the test sets it once the client showed
    # that line): proves a piece is passed on before the rest exists, with no timing
    gate: threading.Event | None = None
    cut_after: int | None = None  # close the connection after this many tokens, no `done`
    # stall after this many tokens (the connection stays open) until `resume` is set
    pause_after: int | None = None
    resume: threading.Event = field(default_factory=threading.Event)
    # faults no real server sends on purpose: a line that is no JSON after this many
    # tokens, or a line that never ends (written until the client hangs up)
    garbage_after: int | None = None
    endless_after: int | None = None
    status: int = 200  # an HTTP error instead of a stream
    error: Any = ""  # the `error` of the HTTP error body (a string or an object), or of
    # an {"error": ...} line mid-stream
    prompt_eval_count: int | None = None
    eval_count: int | None = None
    # nanoseconds, as Ollama's final chunk says it; None: 20 ms a token (50 tokens/s, a 7B
    # model on a consumer GPU), so that answer figures read as a real server's would
    eval_duration: int | None = None
    # False: the final chunk has none of the counts and durations (a server that omits them)
    counts: bool = True
    done_reason: str = "stop"
    # a server that does not honour `options.num_predict` (Ollama does: it stops there
    # with done_reason "length", eval_count the cap)
    ignores_num_predict: bool = False

    @classmethod
    def text(cls, *tokens: str, **kwargs: Any) -> Reply:
        return cls(tokens=list(tokens), **kwargs)

    @classmethod
    def tool(
        cls, name: str, arguments: Any, *, tokens: tuple[str, ...] = (), **kwargs: Any
    ) -> Reply:
        return cls(
            tokens=list(tokens),
            tool_calls=[{"function": {"name": name, "arguments": arguments}}],
            **kwargs,
        )

    @classmethod
    def tools(cls, *calls: tuple[str, Any]) -> Reply:
        return cls(tool_calls=[{"function": {"name": n, "arguments": a}} for n, a in calls])

    @classmethod
    def http_error(cls, status: int, error: Any) -> Reply:
        return cls(status=status, error=error)

    @classmethod
    def thinks(cls, thinking: list[str], *tokens: str, **kwargs: Any) -> Reply:
        """A thinking model's reply: reasoning pieces (content empty), then the answer."""
        return cls(tokens=list(tokens), thinking=thinking, **kwargs)


Script = Reply | Callable[[dict[str, Any]], Reply]


class FakeOllama(ServedFake):
    """The server. Use as a context manager or call start()/stop()."""

    def __init__(
        self,
        models: tuple[str, ...] = DEFAULT_MODELS,
        context_length: int = 32768,
        cards: dict[str, ModelCard] | None = None,
        port: int = 0,
        default: Reply | None = None,
        prompt_counter: Callable[[dict[str, Any]], int] | None = None,
        bind: str = "127.0.0.1",
    ) -> None:
        self.cards = dict(cards or {})
        self.models = list(dict.fromkeys([*models, *self.cards]))
        self.context_length = context_length
        # Counts the prompt of a /api/chat body for `prompt_eval_count` when the Reply does
        # not set it (default: 42), e.g. to simulate a model's tokenizer or Ollama's cut.
        self.prompt_counter = prompt_counter
        # Models in memory and the context each was loaded with, as /api/ps reports them.
        self.loaded: dict[str, int] = {}
        # the answer when nothing is scripted (a Reply, or a function of the request body)
        self.default: Script = default or Reply.text("(pas de réponse scriptée)")
        # how /api/pull behaves (tests.fakes.ollama_pull); a successful pull adds the model
        self.pull = PullPlan()
        # how /api/embed behaves (tests.fakes.embeddings)
        self.embed = EmbedPlan()
        self.requests: list[tuple[str, str, Any]] = []
        self._scripts: list[Script] = []
        super().__init__()
        server_class = QuietServer6 if ":" in bind else QuietServer
        self._server = server_class((bind, port), _handler_for(self))

    # --- lifecycle -------------------------------------------------------------------

    @property
    def url(self) -> str:
        host = str(self._server.server_address[0])
        return f"http://[{host}]:{self.port}" if ":" in host else f"http://{host}:{self.port}"

    # --- scripting and inspection ------------------------------------------------------

    def script(self, *replies: Script) -> None:
        with self._lock:
            self._scripts.extend(replies)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._scripts)

    def card(self, model: str) -> ModelCard:
        return self.cards.get(model) or ModelCard()

    @property
    def show_requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return [body for method, path, body in self.requests if path == "/api/show"]

    @property
    def embed_requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return [body for method, path, body in self.requests if path == "/api/embed"]

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return [body for method, path, body in self.requests if path == "/api/chat"]

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            script = self._scripts.pop(0) if self._scripts else self.default
        return script(body) if callable(script) else script

    def _record(self, method: str, path: str, body: Any) -> None:
        with self._lock:
            self.requests.append((method, path, body))


def _handler_for(fake: FakeOllama) -> type[BaseHTTPRequestHandler]:
    class Handler(TrackedHandler):
        # --- routing -------------------------------------------------------------

        def do_GET(self) -> None:
            fake._record("GET", self.path, None)
            if self.path == "/":
                self._send(200, b"Ollama is running", "text/plain")
            elif self.path == "/api/version":
                self._json(200, {"version": "0.12.6"})
            elif self.path == "/api/tags":
                self._json(200, {"models": [_model_entry(name) for name in fake.models]})
            elif self.path == "/api/ps":
                running = [
                    {**_model_entry(name), "context_length": context}
                    for name, context in fake.loaded.items()
                ]
                self._json(200, {"models": running})
            else:
                self._json(404, {"error": "not found"})

        def do_POST(self) -> None:
            body = self._read_json()
            fake._record("POST", self.path, body)
            if self.path == "/api/show":
                self._show(body)
            elif self.path == "/api/chat":
                self._chat(body)
            elif self.path == "/api/pull":
                serve_pull(self, fake.pull, fake.models, body)
            elif self.path == "/api/embed":
                serve_ollama_embed(self, fake.embed, fake.models, body)
            else:
                self._json(404, {"error": "not found"})

        def do_DELETE(self) -> None:
            body = self._read_json()
            fake._record("DELETE", self.path, body)
            if self.path == "/api/delete":
                serve_delete(self, fake.models, body)
            else:
                self._json(404, {"error": "not found"})

        # --- endpoints -----------------------------------------------------------

        def _show(self, body: dict[str, Any]) -> None:
            name = body.get("model") or body.get("name")
            if name not in fake.models:
                self._json(404, {"error": f"model '{name}' not found"})
                return
            card = fake.card(str(name))
            if card.show_status != 200:
                self._json(card.show_status, {"error": "something went wrong"})
                return
            family = card.family or str(name).split(":")[0].replace(".", "")
            info: dict[str, Any] = {"general.architecture": family}
            length = fake.context_length if card.context_length is _UNSET else card.context_length
            if length is not None:
                info[f"{family}.context_length"] = length
            shown: dict[str, Any] = {
                "modelfile": "",
                "parameters": card.parameters,
                "template": card.template,
                "details": {
                    "parent_model": "",
                    "format": "gguf",
                    "family": family,
                    "families": [family],
                    "parameter_size": card.parameter_size,
                    "quantization_level": card.quantization,
                },
                "model_info": info,
                "modified_at": "2026-11-01T10:00:00Z",
            }
            if card.capabilities is not None:  # an old server sends none
                shown["capabilities"] = card.capabilities
            if card.thinking is not None:
                shown["thinking"] = card.thinking
            self._json(200, shown)

        def _chat(self, body: dict[str, Any]) -> None:
            model = body.get("model")
            if model not in fake.models:
                self._json(404, {"error": f"model '{model}' not found, try pulling it first"})
                return
            refusal = _refusal(fake.card(str(model)), str(model), body)
            if refusal:
                self._json(400, {"error": refusal})
                return
            reply = _capped(fake._next_reply(body), body)
            if reply.prompt_eval_count is None and fake.prompt_counter is not None:
                reply = dataclasses.replace(reply, prompt_eval_count=fake.prompt_counter(body))
            if reply.status != 200:
                self._json(reply.status, {"error": reply.error or "error"})
                return
            if body.get("stream") is False:
                self._json(200, _final(model, "".join(reply.tokens), reply))
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for index, piece in enumerate(reply.thinking):
                self._line(
                    {
                        "model": model,
                        "created_at": _now(),
                        "message": {"role": "assistant", "content": "", "thinking": piece},
                        "done": False,
                    }
                )
                self._pause(reply, first=index == 0)
            for index, token in enumerate(reply.tokens):
                if reply.cut_after is not None and index >= reply.cut_after:
                    self._cut()
                    return
                if index == reply.pause_after:
                    reply.resume.wait(timeout=120)
                if index == reply.garbage_after:
                    self._raw(b'{"model": "cut here\n')
                if index == reply.endless_after:
                    self._endless()
                    return
                self._line(
                    {
                        "model": model,
                        "created_at": _now(),
                        "message": {"role": "assistant", "content": token},
                        "done": False,
                    }
                )
                self._pause(reply, first=index == 0 and not reply.thinking)
            if reply.cut_after is not None:
                self._cut()
                return
            if reply.error:
                self._line({"error": reply.error})
                self._end_chunks()
                return
            if reply.tool_calls:
                self._line(
                    {
                        "model": model,
                        "created_at": _now(),
                        "message": {
                            "role": "assistant",
                            "content": "",
                            "tool_calls": reply.tool_calls,
                        },
                        "done": False,
                    }
                )
            self._line(_final(model, "", reply))
            self._end_chunks()

        # --- wire helpers --------------------------------------------------------

        def _read_json(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                return json.loads(raw) if raw else {}
            except ValueError:
                return {"_invalid": raw.decode("utf-8", "replace")}

        def _send(self, status: int, payload: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def _json(self, status: int, data: Any) -> None:
            self._send(status, json.dumps(data).encode(), "application/json")

        def _line(self, data: Any) -> None:
            payload = json.dumps(data).encode() + b"\n"
            self.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
            self.wfile.flush()

        def _raw(self, payload: bytes) -> None:
            self.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
            self.wfile.flush()

        def _endless(self) -> None:
            """One line that never ends: written until the client hangs up."""
            self._raw(b'{"message": {"role": "assistant", "content": "')
            block = b"x" * 65536
            with contextlib.suppress(OSError):
                while True:
                    self._raw(block)

        def _pause(self, reply: Reply, *, first: bool) -> None:
            if first and reply.gate is not None:
                reply.gate.wait(timeout=60)
            if reply.token_delay:
                time.sleep(reply.token_delay)

        def _end_chunks(self) -> None:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        def _cut(self) -> None:
            """Drop the connection mid-stream, as a crashed server would."""
            self.wfile.flush()
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)

    return Handler


def _capped(reply: Reply, body: dict[str, Any]) -> Reply:
    """The reply as Ollama's runner ends it at `options.num_predict` tokens (thinking
    counts too): cut there, no tool call, done_reason "length"."""
    cap = (body.get("options") or {}).get("num_predict")
    produced = len(reply.thinking) + len(reply.tokens)
    if reply.ignores_num_predict or not isinstance(cap, int) or cap <= 0 or produced <= cap:
        return reply
    thinking = reply.thinking[:cap]
    tokens = reply.tokens[: cap - len(thinking)]
    return dataclasses.replace(
        reply,
        thinking=thinking,
        tokens=tokens,
        tool_calls=[],
        done_reason="length",
        eval_count=cap,
    )


def _refusal(card: ModelCard, model: str, body: dict[str, Any]) -> str:
    """Ollama's 400 for what the model cannot do (server/routes.go), or ""."""
    capabilities = card.capabilities if card.capabilities is not None else ["completion", "tools"]
    if body.get("tools") and ("tools" not in capabilities or card.refuse_tools):
        return f"registry.ollama.ai/library/{model} does not support tools"
    think = body.get("think")
    if think not in (None, False, "") and ("thinking" not in capabilities or card.refuse_thinking):
        return f"{json.dumps(model)} does not support thinking"
    return ""


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _model_entry(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "model": name,
        "modified_at": "2026-11-01T10:00:00Z",
        "size": 4_683_087_332,
        "digest": "0" * 64,
        "details": {
            "format": "gguf",
            "family": name.split(":")[0],
            "parameter_size": "7.6B",
            "quantization_level": "Q4_K_M",
        },
    }


def _final(model: str, content: str, reply: Reply) -> dict[str, Any]:
    eval_count = reply.eval_count if reply.eval_count is not None else max(1, len(reply.tokens))
    final = {
        "model": model,
        "created_at": _now(),
        "message": {"role": "assistant", "content": content},
        "done": True,
        "done_reason": reply.done_reason,
    }
    if not reply.counts:
        return final
    # the counts and durations (nanoseconds) of Ollama's docs, api/usage
    return {
        **final,
        "total_duration": 1_000_000,
        "load_duration": 1000,
        "prompt_eval_count": reply.prompt_eval_count if reply.prompt_eval_count is not None else 42,
        "prompt_eval_duration": 1000,
        "eval_count": eval_count,
        "eval_duration": (
            reply.eval_duration if reply.eval_duration is not None else eval_count * 20_000_000
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=11434)
    parser.add_argument(
        "--reply",
        default="Bonjour ! Je suis un serveur Ollama simulé.",
        help="text of every answer (streamed word by word)",
    )
    parser.add_argument("--delay", type=float, default=0.02, help="seconds between tokens")
    args = parser.parse_args()
    words = [word + " " for word in args.reply.split(" ")]
    server = FakeOllama(port=args.port, default=Reply.text(*words, token_delay=args.delay))
    print(f"fake Ollama on {server.url}", flush=True)
    server._server.serve_forever()


if __name__ == "__main__":
    main()
