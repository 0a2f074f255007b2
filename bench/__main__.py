"""`make bench`: every figure against its budget, as a table and as JSON (bench/results/).

Progress goes to stderr, the table to stdout; bench/results/latest.json holds every figure
and latest.md the table with the machine and the date, as docs/performance.md shows it.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import sys
import time
import traceback
from pathlib import Path

from bench.figures import Figure, render_table

# Each module has `measure() -> list[Figure]`. Order: cheap first.
MODULES = [
    "bench.skills",
    "bench.checks",
    "bench.first_token",
    "bench.openai_first_token",
    "bench.thinking",
    "bench.mcp_calls",
    "bench.watcher",
    "bench.startup",
    "bench.cli_cost",
    "bench.chat",
    "bench.thinking_view",
    "bench.diff_card",
    "bench.soak",
    "bench.jail_race",
    "bench.checkpoints",
    "bench.recall_quality",
    "bench.recall_cost",
    "bench.index_cost",
    "bench.conversations",
    "bench.sidebar",
]
RESULTS = Path(__file__).resolve().parent / "results"


def machine() -> str:
    cpus = os.cpu_count()
    try:
        mem_kb = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f"{mem_kb / 1024 / 1024:.0f} GB"
    except (OSError, ValueError, IndexError):
        memory = "?"
    return (
        f"{platform.system()} {platform.machine()} ({cpu_model()}), {cpus} cores, "
        f"{memory} RAM, Python {platform.python_version()}"
    )


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return " ".join(line.split(":", 1)[1].split())
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", help="comma-separated module names (e.g. first_token)")
    parser.add_argument(
        "--output", type=Path, default=RESULTS, help="folder for latest.json and latest.md"
    )
    args = parser.parse_args()
    selected = MODULES
    if args.only:
        wanted = {f"bench.{name.strip()}" for name in args.only.split(",")}
        unknown = wanted - set(MODULES)
        if unknown:
            parser.error(f"unknown module(s): {', '.join(sorted(unknown))}")
        selected = [m for m in MODULES if m in wanted]
    figures: list[Figure] = []
    failures: list[str] = []
    started = time.monotonic()
    for name in selected:
        print(f"measuring {name} ...", file=sys.stderr, flush=True)
        try:
            figures += importlib.import_module(name).measure()
        except Exception:
            failures.append(name)
            traceback.print_exc()
    elapsed = time.monotonic() - started
    report = (
        f"- Machine: {machine()}\n"
        f"- Run: {time.strftime('%Y-%m-%d %H:%M')}, {elapsed:.0f} s\n\n"
        f"{render_table(figures)}\n"
    )
    print()
    print(report, end="")
    args.output.mkdir(parents=True, exist_ok=True)
    (args.output / "latest.md").write_text(report)
    payload = {
        "machine": machine(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "seconds": round(elapsed, 1),
        "figures": [f.to_json() for f in figures],
        "failed_modules": failures,
    }
    (args.output / "latest.json").write_text(json.dumps(payload, indent=2, ensure_ascii=False))
    missed = [f for f in figures if f.met is False]
    if missed:
        print(f"\n{len(missed)} figure(s) over budget: see docs/performance.md for why.")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
