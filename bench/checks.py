"""Checks: checking a 5,000-line Python file (compile + ruff) and a 5,000-line TypeScript file
(tree-sitter), as the agent and the watcher do."""

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


def typescript_source(lines: int) -> str:
    """Plausible TypeScript (interfaces, generics, enums, classes, arrow functions, template
    strings), `lines` long, with one syntax error (a missing ")") on the last line."""
    block = """

export enum Kind{n} {{
  Draft = "draft",
  Final = "final",
}}

export interface Item{n}<T extends object = {{}}> {{
  readonly id: string;
  kind: Kind{n};
  payload: T;
  tags?: string[];
}}

export class Store{n}<T extends object> {{
  private readonly items = new Map<string, Item{n}<T>>();

  add(item: Item{n}<T>): this {{
    this.items.set(item.id, item);
    return this;
  }}

  find(predicate: (item: Item{n}<T>) => boolean): Item{n}<T> | undefined {{
    for (const item of this.items.values()) {{
      if (predicate(item)) return item;
    }}
    return undefined;
  }}
}}

export const describe{n} = <T extends object>(item: Item{n}<T>): string =>
  `${{item.id}} (${{item.kind}}): ${{(item.tags ?? []).join(", ")}}`;
"""
    header = "// Generated for the checks benchmark.\n"
    footer = "\nconsole.log(describe0({ id: 'a', kind: Kind0.Draft, payload: {} });\n"
    parts = [header]
    count = header.count("\n") + footer.count("\n")
    n = 0
    while count + block.format(n=n).count("\n") <= lines:
        text = block.format(n=n)
        parts.append(text)
        count += text.count("\n")
        n += 1
    parts.append("// padding\n" * (lines - count))
    parts.append(footer)
    return "".join(parts)


async def _measure(path: Path, expected: str) -> list[float]:
    checkers = Checkers()
    result = await checkers.check(path)  # warm-up (binaries and grammars loaded)
    if not any(expected in problem.message for problem in result.problems):
        raise RuntimeError(f"the check did not find {expected!r}: {result}")
    samples = []
    for _ in range(RUNS):
        started = time.perf_counter()
        await checkers.check(path)
        samples.append(time.perf_counter() - started)
    return samples


def measure() -> list[Figure]:
    with tempfile.TemporaryDirectory() as tmp:
        python = Path(tmp) / "big_module.py"
        python.write_text(python_source(LINES), encoding="utf-8")
        typescript = Path(tmp) / "big_module.ts"
        typescript.write_text(typescript_source(LINES), encoding="utf-8")
        python_samples = asyncio.run(_measure(python, "undefined_total"))
        typescript_samples = asyncio.run(_measure(typescript, "« ) » manquant"))
    return [
        Figure(
            "Checks",
            f"checking a {LINES:,}-line Python file",
            median_of(python_samples) * 1000,
            "ms",
            150.0,
            runs=RUNS,
            note="ruff (the project's grammar, fatal rules: a process) + compile()",
        ),
        Figure(
            "Checks",
            f"checking a {LINES:,}-line TypeScript file",
            median_of(typescript_samples) * 1000,
            "ms",
            150.0,
            runs=RUNS,
            note="tree-sitter TypeScript grammar, in a thread",
        ),
    ]
