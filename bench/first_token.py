"""First-token overhead: our whole turn vs the raw ollama client, against the same server."""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

import ollama

from bench.figures import Figure, median_of
from loki_desktop.core.assembly import TurnOptions, build_agent
from loki_desktop.core.events import Token
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.settings import Settings
from loki_desktop.core.tools.toolbox import FixedApprover
from loki_desktop.persistence.history import History
from tests.fakes.ollama_server import FakeOllama, Reply

MODEL = "qwen2.5-coder:7b"
RUNS = 40
PROMPT = "Mon script plante avec une TypeError à la ligne 12, peux-tu m'aider ?"


async def _raw_first_chunk(client: ollama.AsyncClient) -> float:
    start = time.perf_counter()
    stream = await client.chat(
        model=MODEL, messages=[{"role": "user", "content": PROMPT}], stream=True
    )
    first = 0.0
    async for _part in stream:
        if not first:
            first = time.perf_counter() - start
    return first


async def _our_first_token(
    settings: Settings, backend: OllamaBackend, history: History, workspace: Path
) -> float:
    agent = build_agent(
        settings=settings,
        backend=backend,
        store=history,
        workspace=workspace,
        approver=FixedApprover(False),
        options=TurnOptions(skills=True),
    )
    start = time.perf_counter()
    first = 0.0
    async for event in agent.run_turn(PROMPT):
        if isinstance(event, Token) and not first:
            first = time.perf_counter() - start
    return first


async def _measure() -> tuple[list[float], list[float]]:
    with tempfile.TemporaryDirectory() as tmp, FakeOllama() as server:
        server.default = Reply.text("Bonjour", " !", " Voyons", " cela.")
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        history = History(Path(tmp) / "history.db")
        settings = Settings(model=MODEL, skills_enabled=True)
        raw_client = ollama.AsyncClient(host=server.url)
        backend = OllamaBackend(server.url)
        raw: list[float] = []
        ours: list[float] = []
        # warm both paths (imports, connection pools), then interleave to share noise
        await _raw_first_chunk(raw_client)
        await _our_first_token(settings, backend, history, workspace)
        for _ in range(RUNS):
            raw.append(await _raw_first_chunk(raw_client))
            ours.append(await _our_first_token(settings, backend, history, workspace))
        await backend.close()
        await raw_client._client.aclose()
        history.close()
    return raw, ours


def measure() -> list[Figure]:
    raw, ours = asyncio.run(_measure())
    overhead_ms = (median_of(ours) - median_of(raw)) * 1000
    return [
        Figure(
            "First token",
            "raw ollama client, first chunk",
            median_of(raw) * 1000,
            "ms",
            None,
            runs=RUNS,
        ),
        Figure(
            "First token",
            "Loki turn (skills on, no MCP), first token",
            median_of(ours) * 1000,
            "ms",
            None,
            runs=RUNS,
        ),
        Figure("First token", "overhead over the raw client", overhead_ms, "ms", 5.0, runs=RUNS),
    ]
