"""Checkpoints and undo (issue 14): what keeping a file's previous state adds to a write, and
how long undoing a 100-file turn takes (plan: hash every file as it is now; apply: one atomic
write or removal per file, through the jail)."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.figures import Figure, median_of
from loki_desktop.core.changes.recorder import ChangeRecorder
from loki_desktop.core.changes.undo import apply, plan
from loki_desktop.core.tools.jail import Workspace
from loki_desktop.persistence.checkpoints import CheckpointFolder

WRITES = 60
FILE_BYTES = 100_000
TURN_FILES = 100
TURN_FILE_BYTES = 10_000
UNDO_RUNS = 5


class _Timed:
    """The recorder, with the time spent in it (the checkpoint's whole cost) added up."""

    def __init__(self, recorder: ChangeRecorder) -> None:
        self.recorder = recorder
        self.seconds = 0.0

    def before_change(
        self, rel: str, previous: Callable[[], bytes | None], size: int, new: bytes | None
    ) -> None:
        started = time.perf_counter()
        self.recorder.before_change(rel, previous, size, new)
        self.seconds += time.perf_counter() - started

    def after_change(self, rel: str, data: bytes | None) -> None:
        started = time.perf_counter()
        self.recorder.after_change(rel, data)
        self.seconds += time.perf_counter() - started


def checkpoint_cost_ms(base: Path) -> list[float]:
    """Each write replaces a 100 KB file with new 100 KB (a new turn each time, so the
    previous state is read, hashed and stored every time)."""
    workspace = base / "ws"
    workspace.mkdir()
    (workspace / "data.txt").write_bytes(os.urandom(FILE_BYTES))
    store = CheckpointFolder(base / "checkpoints")
    recorder = ChangeRecorder(store, workspace, 10_000)
    timed = _Timed(recorder)
    jail = Workspace(workspace, observer=timed)
    samples = []
    for turn in range(1, WRITES + 1):
        recorder.begin("bench", turn)
        data = os.urandom(FILE_BYTES)
        timed.seconds = 0.0
        with jail.locate("data.txt") as entry:
            jail.write(entry, data)
        samples.append(timed.seconds * 1000)
    store.close()
    return samples


def undo_seconds(base: Path, run: int) -> float:
    workspace = base / f"turn{run}"
    workspace.mkdir()
    for index in range(TURN_FILES):
        (workspace / f"m{index:03}.py").write_bytes(os.urandom(TURN_FILE_BYTES))
    store = CheckpointFolder(base / f"points{run}")
    recorder = ChangeRecorder(store, workspace, 10_000)
    recorder.begin("bench", 1)
    jail = Workspace(workspace, observer=recorder)
    for index in range(TURN_FILES):  # 90 files modified, 10 created
        name = f"m{index:03}.py" if index < 90 else f"new/n{index:03}.py"
        with jail.locate(name, create=True) as entry:
            jail.write(entry, os.urandom(TURN_FILE_BYTES))
    (turn,) = store.turns("bench")
    started = time.perf_counter()
    report = apply(store, plan(turn, "undo"))
    seconds = time.perf_counter() - started
    store.close()
    assert report.complete
    assert len(report.restored) == TURN_FILES
    return seconds


def measure() -> list[Figure]:
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        costs = checkpoint_cost_ms(base)
        undos = [undo_seconds(base, run) for run in range(UNDO_RUNS)]
    return [
        Figure(
            "undo",
            "checkpoint cost per write of a 100 KB file",
            median_of(costs),
            "ms",
            5.0,
            runs=len(costs),
            note=f"max {max(costs):.2f} ms; read, hash and store the old and new content",
            samples=costs,
        ),
        Figure(
            "undo",
            "undo of a 100-file turn",
            median_of(undos),
            "s",
            1.0,
            runs=len(undos),
            note=f"{TURN_FILES} files of {TURN_FILE_BYTES // 1000} KB (10 created); "
            f"max {max(undos):.3f} s",
            samples=undos,
        ),
    ]


if __name__ == "__main__":
    for figure in measure():
        print(figure)
