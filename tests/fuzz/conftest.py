"""Fuzzing every parser of outside input (Hypothesis), with a budget and a count per parser.

`make test` runs the short budget (SHORT_EXAMPLES inputs a parser); `make fuzz` the long one
(LOKI_FUZZ_EXAMPLES, default LONG_EXAMPLES). Each parser must return a value or raise its
module's own error: any other exception fails, and so does an input that made it allocate
more than MEMORY_LIMIT_MB. The number of inputs tried per parser is printed at the end
(tests/conftest.py gathers it from every worker of `pytest -n`).
"""

from __future__ import annotations

import os
import tracemalloc
from collections.abc import Callable
from typing import TypeVar

from hypothesis import HealthCheck, settings

from tests.fuzz.counts import TRIED

SHORT_EXAMPLES = 100
LONG_EXAMPLES = 20_000
MEMORY_LIMIT_MB = 64

EXAMPLES = int(os.environ.get("LOKI_FUZZ_EXAMPLES", SHORT_EXAMPLES))
settings.register_profile(
    "loki",
    max_examples=EXAMPLES,
    deadline=None,  # a hang is pytest-timeout's to catch; speed is bench/'s, not a test's
    database=None,  # nothing written in the tree
    derandomize=EXAMPLES <= SHORT_EXAMPLES,  # the short budget is the same in every run
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("loki")

T = TypeVar("T")


def within_memory(parser: str, call: Callable[[], T]) -> T:
    """Run one input through `parser`, counted; fails past the memory limit (traced only
    while the parser runs: tracing Hypothesis's own drawing would slow it tenfold)."""
    TRIED[parser] += 1
    tracemalloc.start()
    try:
        return call()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < MEMORY_LIMIT_MB * 1024 * 1024, f"{parser}: {peak / 1e6:.0f} MB"
