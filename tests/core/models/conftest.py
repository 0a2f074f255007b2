"""A scripted server with the models of a test, and the real backend talking to it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from loki_desktop.core.llm.ollama import OllamaBackend
from tests.fakes.ollama_server import FakeOllama, ModelCard


@contextlib.asynccontextmanager
async def served(cards: dict[str, ModelCard]) -> AsyncIterator[tuple[FakeOllama, OllamaBackend]]:
    """`served({"qwen3:8b": ModelCard.thinker()})`: a server with these models only, and a
    backend on it."""
    with FakeOllama(models=(), cards=cards) as server:
        backend = OllamaBackend(server.url)
        try:
            yield server, backend
        finally:
            await backend.close()
