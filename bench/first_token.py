"""First-token overhead: our whole turn vs the raw ollama client, against the same server.

Our side is timed as the window runs a message: build the agent (Runtime.make_agent does
it for every message: tools, checkers, skills router), then run the turn until its first
Token event. The raw side is `ollama.AsyncClient.chat(stream=True)` to its first chunk.
Both talk to the same scripted server over real HTTP; runs alternate to share the noise.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

import ollama

from bench.figures import Figure, median_of
from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.assembly import TurnOptions, build_agent
from loki_desktop.core.events import Token
from loki_desktop.core.llm.budget import ContextBudget
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.settings import Settings
from loki_desktop.core.tools.toolbox import OwningSource
from loki_desktop.persistence.history import History
from tests.fakes.ollama_server import FakeOllama, Reply

MODEL = "qwen2.5-coder:7b"
RUNS = 40
PROMPT = "Mon script plante avec une TypeError à la ligne 12, peux-tu m'aider ?"
REPLY = Reply.text("Bonjour", " !", " Voyons", " cela.")


async def raw_first_chunk(client: ollama.AsyncClient) -> float:
    start = time.perf_counter()
    stream = await client.chat(
        model=MODEL, messages=[{"role": "user", "content": PROMPT}], stream=True
    )
    first = 0.0
    async for _part in stream:
        if not first:
            first = time.perf_counter() - start
    return first


class Turns:
    """Runs Loki turns as the window does, against one server, in one data folder."""

    def __init__(self, url: str, folder: Path) -> None:
        self.workspace = folder / "ws"
        self.workspace.mkdir(exist_ok=True)
        self.history = History(folder / "history.db")
        self.settings = Settings(model=MODEL, skills_enabled=True)
        self.backend = OllamaBackend(url)
        self.budget = ContextBudget()  # kept across turns, as the window's Runtime does

    async def first_token(self, extra_sources: list[OwningSource] | None = None) -> float:
        """Seconds from building the agent to its first Token event (the turn completes)."""
        start = time.perf_counter()
        agent = build_agent(
            settings=self.settings,
            backend=self.backend,
            store=self.history,
            workspace=self.workspace,
            approver=FixedApprover(False),
            options=TurnOptions(
                skills=True, extra_sources=list(extra_sources or []), budget=self.budget
            ),
        )
        first = 0.0
        async for event in agent.run_turn(PROMPT):
            if isinstance(event, Token) and not first:
                first = time.perf_counter() - start
        return first

    async def aclose(self) -> None:
        await self.backend.close()
        self.history.close()


async def _measure() -> tuple[list[float], list[float]]:
    with tempfile.TemporaryDirectory() as tmp, FakeOllama(default=REPLY) as server:
        turns = Turns(server.url, Path(tmp))
        raw_client = ollama.AsyncClient(host=server.url)
        raw: list[float] = []
        ours: list[float] = []
        # warm both paths (imports, connection pools), then interleave to share noise
        await raw_first_chunk(raw_client)
        await turns.first_token()
        for _ in range(RUNS):
            raw.append(await raw_first_chunk(raw_client))
            ours.append(await turns.first_token())
        await turns.aclose()
        await raw_client._client.aclose()
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
            note="agent built as the window does per message",
        ),
        Figure(
            "First token",
            "overhead over the raw client",
            overhead_ms,
            "ms",
            5.0,
            runs=RUNS,
            note="difference of the medians",
        ),
    ]
