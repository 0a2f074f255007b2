"""The sidebar with 5,000 conversations grouped by workspace folder and some pinned (issue 31):
what it adds to the launch, against the same 5,000 conversations listed flat (no folder, no
pin: the sidebar as it was). Both are whole starts of the real app (bench/startup.py's
probe, offscreen, the scripted Ollama server), alternating, to the first frame."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from bench.figures import Figure, median_of
from bench.startup import _run_app, _start_bare
from loki_desktop.core.messages import ChatMessage
from loki_desktop.persistence.history import History
from tests.fakes.ollama_server import FakeOllama

CONVERSATIONS = 5_000
FOLDERS = 25
PINNED = 50
RUNS = 5


def history(folder: Path, *, grouped: bool) -> Path:
    """history.db with CONVERSATIONS conversations of one question and one answer each."""
    folder.mkdir()
    store = History(folder / "history.db")
    for index in range(CONVERSATIONS):
        workspace = f"/home/moi/projets/projet-{index % FOLDERS:02}" if grouped else None
        conversation = store.create(f"Conversation {index}", workspace)
        store.append(conversation, ChatMessage("user", f"Question {index}"))
        store.append(conversation, ChatMessage("assistant", f"Réponse {index}"))
        if grouped and index % (CONVERSATIONS // PINNED) == 0:
            store.set_pinned(conversation, True)
    store.close()
    return folder / "history.db"


def measure() -> list[Figure]:
    with tempfile.TemporaryDirectory() as tmp, FakeOllama() as ollama:
        root = Path(tmp)
        print("  5,000 conversations, flat and grouped", file=sys.stderr, flush=True)
        flat = history(root / "flat", grouped=False)
        grouped = history(root / "grouped", grouped=True)
        _start_bare(root)  # warm-up: fills the bytecode cache, not counted
        starts: dict[str, list[float]] = {"flat": [], "grouped": []}
        for run in range(RUNS):
            print(f"  sidebar start {run + 1}/{RUNS}", file=sys.stderr, flush=True)
            for name, database in (("flat", flat), ("grouped", grouped)):
                starts[name].append(_start_with(root, ollama.url, database))
    flat_s, grouped_s = median_of(starts["flat"]), median_of(starts["grouped"])
    return [
        Figure(
            "conversations",
            "launch with 5,000 conversations grouped and pinned, more than flat",
            (grouped_s / flat_s - 1) * 100,
            "%",
            10.0,
            runs=RUNS,
            note=f"first frame {grouped_s:.2f} s grouped ({FOLDERS} folders, {PINNED} pinned) "
            f"against {flat_s:.2f} s flat",
            samples=starts["grouped"],
        )
    ]


def _start_with(root: Path, host: str, database: Path) -> float:
    """One start of the app whose data folder holds `database` (the welcome page shown)."""
    return _run_app(root, host, idle=0.0, database=database).shown_s


if __name__ == "__main__":
    for figure in measure():
        print(figure)
