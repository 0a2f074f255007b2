"""`/api/pull` and `/api/delete` of the scripted Ollama server, in Ollama's own shapes.

Taken from ollama/ollama: docs/api.md ("Pull a Model", "Delete a Model") and
server/download.go, whose `Wait` sends, every 60 ms per layer,
`{"status": "pulling <digest[7:19]>", "digest": "sha256:…", "total": N, "completed": M}`.
A pull streams `pulling manifest`, the layer lines, `verifying sha256 digest`,
`writing manifest`, `success`; a failure is an `{"error": …}` line in a 200 stream (the
handler has already started streaming), e.g. `pull model manifest: file does not exist`
for an unknown name. A cancelled pull resumes where it stopped: this fake keeps each
layer's bytes across requests. `/api/delete` answers 200 with no body, or 404
`{"error": "model 'NAME' not found"}`.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field
from typing import Any, Protocol

UNKNOWN_MODEL_ERROR = "pull model manifest: file does not exist"
DISK_FULL_ERROR = "write /root/.ollama/models/blobs/sha256-partial: no space left on device"


class LineWriter(Protocol):
    """What the server's request handler offers this module."""

    def _line(self, data: Any) -> None: ...
    def _end_chunks(self) -> None: ...
    def _json(self, status: int, data: Any) -> None: ...
    def _send(self, status: int, payload: bytes, content_type: str) -> None: ...
    def send_response(self, code: int, message: str | None = None) -> None: ...
    def send_header(self, keyword: str, value: str) -> None: ...
    def end_headers(self) -> None: ...


@dataclass
class PullPlan:
    """How pulls behave. `library` lists the names the "registry" has (any other name gets
    the unknown-model error); each has `layers` of these sizes, sent in `steps` lines each.
    `fail_after` (a count of layer lines) sends `error` then; `gate`, when set, is waited on
    after `pause_after` layer lines (a test holds a pull mid-way, e.g. to cancel it)."""

    library: dict[str, tuple[int, ...]] = field(
        default_factory=lambda: {"qwen3:8b": (5_000_000, 12_000, 500)}
    )
    steps: int = 20
    delay_s: float = 0.0
    fail_after: int | None = None
    error: str = DISK_FULL_ERROR
    pause_after: int | None = None
    gate: threading.Event | None = None
    # bytes each layer already has (a cancelled pull resumes from here)
    partial: dict[str, int] = field(default_factory=dict)
    lines_sent: int = 0  # over every pull, to check that a pull sends many


def layer_digest(model: str, index: int) -> str:
    return "sha256:" + hashlib.sha256(f"{model}/{index}".encode()).hexdigest()


def serve_pull(handler: LineWriter, plan: PullPlan, models: list[str], body: Any) -> None:
    name = str((body or {}).get("model") or (body or {}).get("name") or "")
    if (body or {}).get("stream") is False:
        # the non-streamed form: one object at the end
        if name not in plan.library:
            handler._json(500, {"error": UNKNOWN_MODEL_ERROR})
            return
        _install(models, name)
        handler._json(200, {"status": "success"})
        return
    handler.send_response(200)
    handler.send_header("Content-Type", "application/x-ndjson")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    try:
        _stream(handler, plan, models, name)
    except OSError:  # the client went away (cancelled): what arrived is kept for a resume
        return


def _stream(handler: LineWriter, plan: PullPlan, models: list[str], name: str) -> None:
    handler._line({"status": "pulling manifest"})
    if name not in plan.library:
        handler._line({"error": UNKNOWN_MODEL_ERROR})
        handler._end_chunks()
        return
    sent = 0
    for index, size in enumerate(plan.library[name]):
        digest = layer_digest(name, index)
        start = plan.partial.get(digest, 0)
        for step in range(1, plan.steps + 1):
            completed = max(start, size * step // plan.steps)
            line: dict[str, Any] = {"status": f"pulling {digest[7:19]}", "digest": digest}
            line["total"] = size
            if completed:  # docs: before the first byte, `completed` may be missing
                line["completed"] = completed
            if plan.fail_after is not None and sent >= plan.fail_after:
                handler._line({"error": plan.error})
                handler._end_chunks()
                return
            if plan.pause_after is not None and sent == plan.pause_after and plan.gate:
                plan.gate.wait(timeout=60)
            handler._line(line)
            plan.partial[digest] = completed
            sent += 1
            plan.lines_sent += 1
            if plan.delay_s:
                threading.Event().wait(plan.delay_s)
    for status in ("verifying sha256 digest", "writing manifest", "success"):
        handler._line({"status": status})
    handler._end_chunks()
    _install(models, name)


def _install(models: list[str], name: str) -> None:
    if name not in models:
        models.append(name)


def serve_delete(handler: LineWriter, models: list[str], body: Any) -> None:
    name = str((body or {}).get("model") or (body or {}).get("name") or "")
    if name not in models:
        handler._json(404, {"error": f"model '{name}' not found"})
        return
    models.remove(name)
    handler._send(200, b"", "application/json")
