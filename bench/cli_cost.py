"""One-shot CLI cost: a whole `loki-desktop ask` process against a plain script that streams
the same answer with the official ollama client, side by side.

Both are fresh processes run to their exit, alternating, against the same scripted Ollama
server (the same answer, 40 streamed lines). `ask` runs as a person runs it: no model
given (the settings have none, so the server's first model is used), the current folder
as workspace, a history that already exists (one discarded run creates it). The plain
script is the floor: Python, asyncio, the ollama client (httpx, pydantic), one request.
Both children use a bytecode cache of the bench's own (see bench/startup.py).
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.figures import Figure, median_of
from bench.startup import _env
from tests.fakes.ollama_server import FakeOllama, Reply

RUNS = 11
PROMPT = "Réponds en une phrase : à quoi sert un fichier README ?"
ANSWER = [f"mot{i} " for i in range(40)]
MODEL = "qwen2.5-coder:7b"

PLAIN = """
import asyncio, sys
import ollama

async def main():
    client = ollama.AsyncClient(host=sys.argv[1])
    stream = await client.chat(
        model=sys.argv[2], messages=[{"role": "user", "content": sys.argv[3]}], stream=True
    )
    async for part in stream:
        sys.stdout.write(part.message.content or "")
        sys.stdout.flush()
    print()

asyncio.run(main())
"""


def measure() -> list[Figure]:
    with tempfile.TemporaryDirectory() as tmp, FakeOllama(default=Reply.text(*ANSWER)) as server:
        root = Path(tmp)
        home, workspace = root / "home", root / "ws"
        home.mkdir()
        workspace.mkdir()
        ask = [sys.executable, "-m", "loki_desktop", "ask", PROMPT, "--host", server.url]
        plain = [sys.executable, "-c", PLAIN, server.url, MODEL, PROMPT]
        _run(ask, home, workspace)  # creates the history; fills the bytecode cache
        _run(plain, home, workspace)
        loki: list[tuple[float, float]] = []
        floor: list[tuple[float, float]] = []
        for index in range(RUNS):
            print(f"  ask / plain script {index + 1}/{RUNS}", file=sys.stderr, flush=True)
            floor.append(_run(plain, home, workspace))
            loki.append(_run(ask, home, workspace))
    ratios = [a[0] / b[0] for a, b in zip(loki, floor, strict=True)]
    cpu_ratios = [a[1] / b[1] for a, b in zip(loki, floor, strict=True)]
    return [
        Figure(
            "CLI",
            "plain script streaming with the ollama client",
            median_of(f[0] for f in floor) * 1000,
            "ms",
            None,
            runs=RUNS,
            note="whole process: start, one /api/chat, exit",
        ),
        Figure(
            "CLI",
            "`loki-desktop ask`, whole process",
            median_of(a[0] for a in loki) * 1000,
            "ms",
            None,
            runs=RUNS,
            note="no model given: the server's first one",
        ),
        Figure(
            "CLI",
            "`ask` / plain script",
            median_of(ratios),
            "x",
            1.5,
            runs=RUNS,
            note="wall time: median of the per-pair ratios, runs alternating",
        ),
        Figure(
            "CLI",
            "`ask` / plain script, CPU time",
            median_of(cpu_ratios),
            "x",
            None,
            runs=RUNS,
            note=f"user + system; {median_of(a[1] for a in loki) * 1000:.0f} ms against "
            f"{median_of(f[1] for f in floor) * 1000:.0f} ms (steadier than wall time "
            "on a loaded machine)",
        ),
    ]


def _run(command: list[str], home: Path, workspace: Path) -> tuple[float, float]:
    """Wall time from spawn to exit, and the CPU time the process used (user + system)."""
    env = _env(home)
    env.pop("QT_QPA_PLATFORM", None)
    began = time.perf_counter()
    child = subprocess.Popen(
        command, cwd=workspace, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    out, err = child.communicate(timeout=60)
    elapsed = time.perf_counter() - began
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime - _run.cpu_so_far  # type: ignore[attr-defined]
    _run.cpu_so_far += cpu  # type: ignore[attr-defined]
    if child.returncode != 0 or b"mot39" not in out:
        raise RuntimeError(f"{command[:4]} failed: {err.decode()[-2000:]}")
    return elapsed, cpu


_run.cpu_so_far = 0.0  # type: ignore[attr-defined]
