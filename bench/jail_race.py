"""Jail: 10,000 tool calls while a thread swaps a folder for a link to the outside (issue 15).

The suite runs 2,000 of the same calls (tests/core/tools/test_jail_race.py); this run makes
the full 10,000 and counts escapes: a file written outside, or outside text read back.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from bench.figures import Figure
from tests.core.tools.race_rig import Scene
from tests.core.tools.test_jail_race import run_race

OPERATIONS = 10_000


def measure() -> list[Figure]:
    with tempfile.TemporaryDirectory() as base:
        started = time.perf_counter()
        escapes = run_race(Scene.build(Path(base)), OPERATIONS)
        seconds = time.perf_counter() - started
    note = f"{OPERATIONS} calls of every file tool in {seconds:.1f} s"
    if escapes:
        note += "; first: " + escapes[0]
    return [Figure("jail", "escapes under a racing swap", len(escapes), "", 0, note=note)]


if __name__ == "__main__":
    for figure in measure():
        print(figure)
