"""Workspace knowledge: building the index of a 10,000-file folder, updating it, searching it.

    .venv/bin/python -m bench.index_cost

- the first build (every file read and cut into passages; words only, the vectors are the
  embedder's own cost), then an update with nothing changed (what each turn's prepare pays);
- a search over the 10,000 files' passages with 512-dim vectors, beyond the question's
  embedding (the vectors are random unit vectors: the search's cost does not depend on them).
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.figures import Figure
from bench.recall_cost import QUESTIONS, KnownQueries
from loki_desktop.core.knowledge.index import Knowledge
from loki_desktop.core.memory.embedders import EMBEDDED_NAME, Vectors
from loki_desktop.core.memory.vector_state import EmbedderChoice
from loki_desktop.persistence.workspace_index import IndexFile

FILES = 10_000
RUNS = 15


def _folder(root: Path) -> None:
    for n in range(FILES):
        sub = root / f"dossier{n % 100}"
        sub.mkdir(exist_ok=True)
        (sub / f"note{n}.md").write_text(
            f"# Note {n}\n\nLe projet P{n % 97} utilise l'outil T{n % 131}.\n"
            f"Référence R-{n:05d}, revue le {n % 28 + 1} mars.\n",
            encoding="utf-8",
        )


async def _measure(root: Path, index: Path) -> dict[str, list[float]]:
    words_only = Knowledge(root, lambda: IndexFile(index), EmbedderChoice(None, lambda: None))
    start = time.perf_counter()
    await words_only.update()
    built = time.perf_counter() - start
    start = time.perf_counter()
    await words_only.update()
    again = time.perf_counter() - start
    store = await words_only.store()
    rng = np.random.default_rng(3)
    rows = []
    for pid in range(1, store.count() + 1):
        vector = rng.standard_normal(512).astype(np.float32)
        rows.append((pid, (vector / np.linalg.norm(vector)).astype("<f4").tobytes()))
    store.put_vectors(EMBEDDED_NAME, 512, rows)
    await words_only.aclose()
    known = {q: np.asarray(rows_vector(rng), dtype=np.float32) for q in QUESTIONS}
    choice = EmbedderChoice(KnownQueries(known))
    knowledge = Knowledge(root, lambda: IndexFile(index), choice)
    await choice.active(await knowledge.store())
    await knowledge.search(QUESTIONS[0])  # the vectors read once
    searched = []
    for run in range(RUNS):
        start = time.perf_counter()
        await knowledge.search(QUESTIONS[run % len(QUESTIONS)])
        searched.append((time.perf_counter() - start) * 1000)
    await knowledge.aclose()
    return {"built": [built], "again": [again], "search": searched}


def rows_vector(rng: np.random.Generator) -> Vectors:
    vector = rng.standard_normal(512).astype(np.float32)
    unit: Vectors = (vector / np.linalg.norm(vector)).astype(np.float32)
    return unit


def measure() -> list[Figure]:
    with tempfile.TemporaryDirectory() as folder:
        root, index = Path(folder) / "workspace", Path(folder) / "index.db"
        root.mkdir()
        _folder(root)
        found = asyncio.run(_measure(root, index))
    note = f"{FILES} Markdown files"
    return [
        Figure("workspace index", "first build (words)", found["built"][0], "s", None, note=note),
        Figure(
            "workspace index", "update, nothing changed", found["again"][0], "s", None, note=note
        ),
        Figure(
            "workspace index",
            "search beyond the embedding",
            statistics.median(found["search"]),
            "ms",
            30.0,
            runs=RUNS,
            note=note + ", 512-dim vectors",
            samples=found["search"],
        ),
    ]


def main() -> None:
    for figure in measure():
        budget = f"(budget {figure.budget} {figure.unit})" if figure.budget else ""
        print(f"{figure.name:35} {figure.value:9.3f} {figure.unit:3} {budget} {figure.note}")


if __name__ == "__main__":
    main()
