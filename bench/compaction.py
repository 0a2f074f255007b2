"""Compaction: 40 turns on an 8k context through the real agent and the scripted server, and
the cost of the check each request pays (the whole request estimated) on long histories.

The scripted model answers the summary call with the facts the user asked it to keep (from
the previous summary and the new messages), as the summary prompt asks; a real model's
summary quality is not measured here (only the scripted server is reachable).
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.figures import Figure, median_of
from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.assembly import TurnOptions, build_agent
from loki_desktop.core.compaction import SUMMARY_SYSTEM
from loki_desktop.core.events import Compacted
from loki_desktop.core.llm.budget import ContextBudget, answer_reserve
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.messages import ChatMessage
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from tests.fakes.ollama_server import FakeOllama, Reply

MODEL = "qwen2.5-coder:7b"
TURNS = 40
WINDOW = 8192
FACT = "Retiens : mon serveur de prod tourne sur Debian 12, port 8443."
FILLER = "Je détaille le contexte du projet et ce que nous avons essayé jusqu'ici. " * 3
CHECK_RUNS = 21


def scripted_model(body: dict[str, Any]) -> Reply:
    if body["messages"][0]["content"] != SUMMARY_SYSTEM:
        return Reply.text("D'accord. " + FILLER)
    given = body["messages"][1]["content"]
    kept = [line for line in given.splitlines() if "Retiens" in line or line.startswith("- ")]
    facts = dict.fromkeys(line.split("Retiens : ", 1)[-1].lstrip("- ") for line in kept)
    return Reply.text("\n".join(f"- {fact}" for fact in facts) or "- rien de notable")


async def forty_turns() -> dict[str, float]:
    with FakeOllama(default=Reply.text("")) as server, tempfile.TemporaryDirectory() as tmp:
        server.default = scripted_model
        backend = OllamaBackend(server.url)
        store = History(Path(tmp) / "history.db")
        workspace = Path(tmp) / "workspace"
        workspace.mkdir()
        settings = Settings(model=MODEL, num_ctx=WINDOW)
        conversation, compactions, turn_seconds = None, 0, []
        try:
            for index in range(TURNS):
                agent = build_agent(
                    settings=settings,
                    backend=backend,
                    store=store,
                    workspace=workspace,
                    approver=FixedApprover(False),
                    options=TurnOptions(),
                )
                text = FACT if index == 0 else f"Question {index} : {FILLER}"
                started = time.perf_counter()
                async for event in agent.run_turn(text, conversation):
                    compactions += isinstance(event, Compacted)
                turn_seconds.append(time.perf_counter() - started)
                conversation = agent.last_conversation
        finally:
            await backend.close()
            store.close()
        answers = [b for b in server.chat_requests if b["messages"][0]["content"] != SUMMARY_SYSTEM]
        kept = "8443" in str(answers[-1]["messages"])
        largest = max(len(str(b["messages"])) for b in answers)
        return {
            "compactions": compactions,
            "kept": float(kept),
            "largest_chars": largest,
            "turn_ms": median_of(turn_seconds) * 1000,
        }


def check_ms(messages: int) -> float:
    """The estimate of a whole request over `messages` history messages (each request's
    compaction check does it, twice at most)."""
    history = [
        ChatMessage("user" if i % 2 == 0 else "assistant", f"Message {i} : {FILLER}")
        for i in range(messages)
    ]
    budget = ContextBudget()
    budget.estimate_request(MODEL, ["système"], history, [])  # the estimates are memoised
    samples = []
    for _ in range(CHECK_RUNS):
        started = time.perf_counter()
        budget.estimate_request(MODEL, ["système"], history, [])
        samples.append((time.perf_counter() - started) * 1000)
    return median_of(samples)


def measure() -> list[Figure]:
    run = asyncio.run(forty_turns())
    usable = WINDOW - answer_reserve(WINDOW)
    return [
        Figure(
            "Compaction",
            f"fact from turn 1 still sent at turn {TURNS} (8k context)",
            run["kept"],
            "yes=1",
            1.0,
            lower_is_better=False,
        ),
        Figure(
            "Compaction",
            f"summary calls in {TURNS} turns (8k context)",
            run["compactions"],
            "calls",
            None,
            note=f"largest request {run['largest_chars']:.0f} chars; usable {usable} tokens",
        ),
        Figure("Compaction", "median turn, scripted server", run["turn_ms"], "ms", None),
        Figure("Compaction", "check of a 1,000-message history", check_ms(1_000), "ms", 5.0),
        Figure(
            "Compaction",
            "check of a 10,000-message history",
            check_ms(10_000),
            "ms",
            None,
            note="past core.tokens' memo of 8,192 texts; the budget's fit pays the same",
        ),
    ]


if __name__ == "__main__":
    for figure in measure():
        print(figure.area, figure.name, round(figure.value, 2), figure.unit, figure.note)
