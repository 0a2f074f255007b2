"""Checks: checking a 5,000-line Python file, as the agent and the watcher do (compile + ruff)."""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from bench.figures import Figure, median_of
from loki_desktop.core.checks.registry import Checkers

LINES = 5_000
RUNS = 15


def python_source(lines: int) -> str:
    """Plausible code (classes, typed functions, comprehensions, f-strings), `lines` long,
    with one undefined name at the end, so the check has something to report."""
    block = '''

class Record{n}:
    """A record read from the file."""

    def __init__(self, name: str, values: list[float]) -> None:
        self.name = name
        self.values = values

    def total(self) -> float:
        return sum(value for value in self.values if value > 0)

    def describe(self) -> str:
        mean = self.total() / max(1, len(self.values))
        return f"{{self.name}}: {{mean:.2f}} over {{len(self.values)}} values"


def load_{n}(rows: list[dict[str, str]]) -> list[Record{n}]:
    records = []
    for row in rows:
        values = [float(part) for part in row.get("values", "").split(",") if part]
        records.append(Record{n}(row["name"], values))
    return sorted(records, key=lambda record: record.total(), reverse=True)
'''
    header = '"""Generated for the checks benchmark."""\n\nfrom __future__ import annotations\n'
    footer = "\n\nprint(undefined_total)\n"
    parts = [header]
    count = header.count("\n") + footer.count("\n")
    n = 0
    while count + block.format(n=n).count("\n") <= lines:
        text = block.format(n=n)
        parts.append(text)
        count += text.count("\n")
        n += 1
    parts.append("# padding\n" * (lines - count))
    parts.append(footer)
    return "".join(parts)


async def _measure(path: Path) -> list[float]:
    checkers = Checkers()
    result = await checkers.check(path)  # warm-up (the ruff binary into the page cache)
    if not any("undefined_total" in problem.message for problem in result.problems):
        raise RuntimeError(f"the check did not find the undefined name: {result}")
    samples = []
    for _ in range(RUNS):
        started = time.perf_counter()
        await checkers.check(path)
        samples.append(time.perf_counter() - started)
    return samples


def measure() -> list[Figure]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big_module.py"
        source = python_source(LINES)
        path.write_text(source, encoding="utf-8")
        samples = asyncio.run(_measure(path))
    lines = source.count("\n")
    return [
        Figure(
            "Checks",
            f"checking a {lines:,}-line Python file",
            median_of(samples) * 1000,
            "ms",
            150.0,
            runs=RUNS,
            note="compile() + ruff fatal rules (a process)",
        )
    ]
