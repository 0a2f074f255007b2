"""First token over an OpenAI-compatible server: the raw `openai` client, our httpx backend,
and a whole Loki turn, against the same scripted server (tests/fakes/openai_server.py).

The budget: a Loki turn (agent built as the window does per message, skills on) reaches its
first token at most 5 ms after the raw `openai` client's first chunk. The backend alone
(httpx, SSE assembly) against the raw client is the figure behind the dependency choice;
the import cost of the `openai` package (a fresh interpreter) is the other one.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import openai
from openai.types.chat import ChatCompletionMessageParam

from bench.figures import Figure, median_of
from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.assembly import TurnOptions, build_agent
from loki_desktop.core.events import Token
from loki_desktop.core.llm.budget import ContextBudget
from loki_desktop.core.llm.openai_backend import OpenAIBackend
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from tests.fakes.openai_server import FakeOpenAI, Reply

MODEL = "Qwen/Qwen2.5-Coder-7B-Instruct"
RUNS = 40
PROMPT = "Mon script plante avec une TypeError à la ligne 12, peux-tu m'aider ?"
REPLY = Reply.text("Bonjour", " !", " Voyons", " cela.")
MESSAGES = [{"role": "user", "content": PROMPT}]
# the same message, typed as the client's overloads want it (so `stream=True` picks the
# overload that returns an AsyncStream)
RAW_MESSAGES: list[ChatCompletionMessageParam] = [{"role": "user", "content": PROMPT}]


async def raw_first_chunk(client: openai.AsyncOpenAI) -> float:
    start = time.perf_counter()
    stream = await client.chat.completions.create(model=MODEL, messages=RAW_MESSAGES, stream=True)
    first = 0.0
    async for chunk in stream:
        if not first and chunk.choices and chunk.choices[0].delta.content:
            first = time.perf_counter() - start
    return first


async def backend_first_chunk(backend: OpenAIBackend) -> float:
    start = time.perf_counter()
    first = 0.0
    async for chunk in backend.chat(model=MODEL, messages=MESSAGES, tools=[], options={}):
        if not first and chunk.content:
            first = time.perf_counter() - start
    return first


async def turn_first_token(
    backend: OpenAIBackend, folder: Path, budget: ContextBudget, history: History
) -> float:
    """As the window runs a message: build the agent, run the turn to its first Token."""
    start = time.perf_counter()
    agent = build_agent(
        settings=Settings(model=MODEL, skills_enabled=True),
        backend=backend,
        store=history,
        workspace=folder,
        approver=FixedApprover(False),
        options=TurnOptions(skills=True, budget=budget),
    )
    first = 0.0
    async for event in agent.run_turn(PROMPT):
        if isinstance(event, Token) and not first:
            first = time.perf_counter() - start
    return first


async def _measure() -> tuple[list[float], list[float], list[float]]:
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI(default=REPLY) as server:
        folder = Path(tmp)
        raw_client = openai.AsyncOpenAI(base_url=server.url, api_key="sk-bench", max_retries=0)
        backend = OpenAIBackend(server.url, api_key="sk-bench")
        budget = ContextBudget()  # kept across turns, as the window's Runtime does
        history = History(folder / "history.db")
        raw: list[float] = []
        ours: list[float] = []
        turns: list[float] = []
        await raw_first_chunk(raw_client)  # warm imports and connection pools
        await backend_first_chunk(backend)
        await turn_first_token(backend, folder, budget, history)
        for _ in range(RUNS):  # interleaved so the three share the machine's noise
            raw.append(await raw_first_chunk(raw_client))
            ours.append(await backend_first_chunk(backend))
            turns.append(await turn_first_token(backend, folder, budget, history))
        await backend.close()
        await raw_client.close()
        history.close()
    return raw, ours, turns


def import_seconds(module: str) -> float:
    """Seconds to import `module` in a fresh interpreter (median of 3)."""
    code = f"import time; s = time.perf_counter(); import {module}; print(time.perf_counter() - s)"
    runs = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(3)
    ]
    return median_of(runs)


def measure() -> list[Figure]:
    raw, ours, turns = asyncio.run(_measure())
    raw_ms = median_of(raw) * 1000
    return [
        Figure(
            "OpenAI first token", "raw openai client, first chunk", raw_ms, "ms", None, runs=RUNS
        ),
        Figure(
            "OpenAI first token",
            "our backend (httpx), first chunk",
            median_of(ours) * 1000,
            "ms",
            None,
            runs=RUNS,
            note="the dependency choice: httpx directly vs the openai package",
        ),
        Figure(
            "OpenAI first token",
            "Loki turn (skills on, no MCP), first token",
            median_of(turns) * 1000,
            "ms",
            None,
            runs=RUNS,
        ),
        Figure(
            "OpenAI first token",
            "turn overhead over the raw openai client",
            median_of(turns) * 1000 - raw_ms,
            "ms",
            5.0,
            runs=RUNS,
            note="difference of the medians",
        ),
        Figure(
            "OpenAI first token",
            "import openai (fresh interpreter)",
            import_seconds("openai") * 1000,
            "ms",
            None,
            note="what the package would add to the first request",
        ),
        Figure(
            "OpenAI first token",
            "import our backend (fresh interpreter)",
            import_seconds("loki_desktop.core.llm.openai_backend") * 1000,
            "ms",
            None,
        ),
    ]
