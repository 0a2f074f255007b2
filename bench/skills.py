"""Skills: the router's time per message, over the labelled corpus (FR/EN, short and long)."""

from __future__ import annotations

import time
from pathlib import Path

from bench.figures import Figure, median_of
from loki_desktop.core.skills.loader import load_examples, load_router, read_examples

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "skills" / "examples"
# the same 1,694 messages as before the routing sets joined skills/examples (router6), so the
# figure compares with the earlier ones: the first examples and three of the routing sets
CORPORA = tuple(
    EXAMPLES / name
    for name in (
        "everyday.tsv",
        "labelled.tsv",
        "plain.tsv",
        "trades.tsv",
        "tuning.tsv",
        "heldout.tsv",
        "fresh.tsv",
        "fresh2.tsv",
    )
)
PASSES = 20  # over every message of the corpus


def corpus_messages() -> list[str]:
    messages = []
    for path in CORPORA:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                messages.append(line.split("\t")[-1].replace("\\n", "\n"))
    return messages


def measure() -> list[Figure]:
    messages = corpus_messages()
    started, cpu = time.perf_counter(), time.process_time()
    examples = read_examples()
    read_ms = (time.perf_counter() - started) * 1000
    read_cpu_ms = (time.process_time() - cpu) * 1000
    started, cpu = time.perf_counter(), time.process_time()
    load_examples()
    model_ms = (time.perf_counter() - started) * 1000 - read_ms
    # CPU time too: the machine's load inflates the wall time several times over
    model_cpu_ms = (time.process_time() - cpu) * 1000 - read_cpu_ms
    started = time.perf_counter()
    router, _problems = load_router(None)  # the first agent reads and compiles the skills
    load_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    load_router(None)  # every later agent (one a message in the window) reuses them
    reuse_ms = (time.perf_counter() - started) * 1000
    for message in messages:  # warm-up
        router.pick(message)
    samples: list[float] = []
    for _ in range(PASSES):
        for message in messages:
            before = time.perf_counter_ns()
            router.pick(message)
            samples.append((time.perf_counter_ns() - before) / 1e3)
    samples.sort()
    return [
        Figure(
            "Skills",
            "routing one message",
            median_of(samples),
            "µs",
            100.0,
            runs=len(samples),
            note=f"{len(messages)} corpus messages x {PASSES}; "
            f"99th percentile {samples[int(len(samples) * 0.99)]:.0f} µs",
        ),
        Figure(
            "Skills",
            "loading the skills and building the router",
            load_ms,
            "ms",
            None,
            note=f"the first agent; the next ones reuse them: {reuse_ms * 1000:.0f} µs",
        ),
        Figure(
            "Skills",
            "learning the example-based opinion",
            model_ms,
            "ms",
            None,
            note=f"{len(examples)} labelled requests, read in {read_ms:.0f} ms (once per process); "
            f"~{model_cpu_ms:.0f} ms of CPU",
        ),
    ]
