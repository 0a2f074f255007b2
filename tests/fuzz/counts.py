"""How many inputs each fuzzed parser was given in this process (a worker of `pytest -n`)."""

from __future__ import annotations

from collections import Counter

TRIED: Counter[str] = Counter()
