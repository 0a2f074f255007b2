"""The embedding endpoints of the scripted servers: Ollama's /api/embed, OpenAI's /v1/embeddings.

Shapes from Ollama's docs/api.md and server/routes.go (EmbedHandler), and OpenAI's API
reference (the embedding object):

    POST /api/embed {"model", "input": str | [str]}
        -> 200 {"model", "embeddings": [[float...]], "total_duration", "load_duration",
                "prompt_eval_count"}
        an unknown model -> 404 {"error": "model '<name>' not found"}
    POST /v1/embeddings {"model", "input": str | [str]}
        -> 200 {"object": "list", "data": [{"object": "embedding", "index", "embedding"}],
                "model", "usage": {"prompt_tokens", "total_tokens"}}

The vectors are a bag of words hashed into `dim` buckets: texts sharing words are close,
which is all a test of the plumbing needs (the real model's quality is the bench's matter).
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass
class EmbedPlan:
    """How the embedding endpoint behaves. `models`: the ones it can embed with (empty: any
    model the server lists). `hang`: set, the request waits until it is cleared (a server
    that never answers); `status`: answer this error instead."""

    dim: int = 16
    models: set[str] = field(default_factory=set)
    status: int = 200
    hang: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)


def bag_vector(text: str, dim: int) -> list[float]:
    vector = [0.0] * dim
    for word in re.findall(r"\w+", text.lower()):
        bucket = int(hashlib.sha256(word.encode()).hexdigest(), 16) % dim
        vector[bucket] += 1.0
    return vector


class JsonHandler(Protocol):
    def _json(self, status: int, data: Any) -> None: ...


def inputs_of(body: dict[str, Any]) -> list[str] | None:
    raw = body.get("input")
    if isinstance(raw, str):
        return [raw]
    if isinstance(raw, list) and all(isinstance(item, str) for item in raw):
        return list(raw)
    return None


def serve_ollama_embed(
    handler: JsonHandler, plan: EmbedPlan, listed: list[str], body: dict[str, Any]
) -> None:
    model = str(body.get("model"))
    if plan.hang.is_set():
        plan.release.wait(30)
    known = plan.models or set(listed)
    if model not in known:
        handler._json(404, {"error": f"model '{model}' not found"})
        return
    texts = inputs_of(body)
    if texts is None:
        handler._json(400, {"error": "invalid input type"})
        return
    if plan.status != 200:
        handler._json(plan.status, {"error": "something went wrong"})
        return
    handler._json(
        200,
        {
            "model": model,
            "embeddings": [bag_vector(text, plan.dim) for text in texts],
            "total_duration": 14143917,
            "load_duration": 1019500,
            "prompt_eval_count": sum(len(text.split()) for text in texts),
        },
    )


def openai_embeddings(model: str, texts: list[str], dim: int) -> dict[str, Any]:
    tokens = sum(len(text.split()) for text in texts)
    return {
        "object": "list",
        "data": [
            {"object": "embedding", "index": index, "embedding": bag_vector(text, dim)}
            for index, text in enumerate(texts)
        ],
        "model": model,
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }
