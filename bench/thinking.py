"""Thinking models: how soon the reasoning shows, and what reading it costs per character.

The first figure runs real turns against a scripted thinking model whose reasoning lasts
~1 s (20 pieces, 50 ms apart) before the answer: the time from starting the turn to its
first Thinking event, against the time to its first Token (the end of the reasoning).
The second feeds a long reply (reasoning in `<think>` tags, then the answer) through the
reply reader (tag splitter + text-call watch) in 4-character pieces, as Ollama streams
about a token a chunk, at two lengths (alternated): the cost per character must not grow.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from bench.figures import Figure, median_of
from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.assembly import TurnOptions, build_agent
from loki_desktop.core.events import Thinking, Token
from loki_desktop.core.llm.budget import ContextBudget
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.llm.reply import ReplyReader
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from tests.fakes.ollama_server import FakeOllama, ModelCard, Reply

MODEL = "qwen3:8b"
RUNS = 5
PIECES, PIECE_DELAY_S = 20, 0.05


async def _first_events(url: str, folder: Path) -> tuple[list[float], list[float]]:
    history = History(folder / "history.db")
    backend = OllamaBackend(url)
    budget = ContextBudget()
    thinking, answer = [], []
    try:
        for _ in range(RUNS + 1):  # the first run warms imports and the connection
            agent = build_agent(
                settings=Settings(model=MODEL),
                backend=backend,
                store=history,
                workspace=folder,
                approver=FixedApprover(False),
                options=TurnOptions(skills=False, budget=budget),
            )
            start = time.perf_counter()
            first_thought = first_token = 0.0
            async for event in agent.run_turn("Combien de r dans strawberry ?"):
                elapsed = time.perf_counter() - start
                if isinstance(event, Thinking) and not first_thought:
                    first_thought = elapsed
                if isinstance(event, Token) and not first_token:
                    first_token = elapsed
            thinking.append(first_thought)
            answer.append(first_token)
    finally:
        await backend.close()
        history.close()
    return thinking[1:], answer[1:]


def _per_char_ns(length: int) -> float:
    reply = (
        "<think>"
        + "je réfléchis " * (length // 26)
        + "</think>"
        + "Voici la réponse. " * (length // 36)
    )
    pieces = [reply[i : i + 4] for i in range(0, len(reply), 4)]
    reader = ReplyReader(["write_file", "read_file"])
    start = time.perf_counter()
    for piece in pieces:
        reader.feed(piece)
    reader.finish()
    return (time.perf_counter() - start) / len(reply) * 1e9


def measure() -> list[Figure]:
    card = ModelCard.thinker(family="qwen3")
    script = Reply.thinks(
        [f"étape {i}. " for i in range(PIECES)], "Il y en a 3.", token_delay=PIECE_DELAY_S
    )
    with tempfile.TemporaryDirectory() as tmp, FakeOllama(models=(), cards={MODEL: card}) as s:
        s.default = script
        thinking, answer = asyncio.run(_first_events(s.url, Path(tmp)))
    # alternate the two lengths so both share the machine's noise
    pairs = [(_per_char_ns(100_000), _per_char_ns(1_000_000)) for _ in range(5)]
    short = median_of(a for a, _ in pairs)
    long = median_of(b for _, b in pairs)
    return [
        Figure(
            "Thinking",
            "first Thinking event (reasoning lasts ~1 s)",
            median_of(thinking) * 1000,
            "ms",
            100.0,
            runs=RUNS,
            note=f"first Token at {median_of(answer) * 1000:.0f} ms",
        ),
        Figure("Thinking", "reply reader, 100 k chars in 4-char pieces", short, "ns/char", None),
        Figure(
            "Thinking",
            "reply reader, 1 M chars: cost per char vs 100 k",
            median_of(b / a for a, b in pairs),
            "×",
            1.5,
            runs=5,
            note=f"{long:.0f} ns/char",
        ),
    ]
