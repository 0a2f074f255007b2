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
        loki: list[float] = []
        floor: list[float] = []
        for index in range(RUNS):
            print(f"  ask / plain script {index + 1}/{RUNS}", file=sys.stderr, flush=True)
            floor.append(_run(plain, home, workspace))
            loki.append(_run(ask, home, workspace))
    ratios = [a / b for a, b in zip(loki, floor, strict=True)]
    return [
        Figure(
            "CLI",
            "plain script streaming with the ollama client",
            median_of(floor) * 1000,
            "ms",
            None,
            runs=RUNS,
            note="whole process: start, one /api/chat, exit",
        ),
        Figure(
            "CLI",
            "`loki-desktop ask`, whole process",
            median_of(loki) * 1000,
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
            note="median of the per-pair ratios, runs alternating",
        ),
    ]


def _run(command: list[str], home: Path, workspace: Path) -> float:
    env = _env(home)
    env.pop("QT_QPA_PLATFORM", None)
    began = time.perf_counter()
    done = subprocess.run(command, cwd=workspace, env=env, capture_output=True, timeout=60)
    elapsed = time.perf_counter() - began
    if done.returncode != 0 or b"mot39" not in done.stdout:
        raise RuntimeError(f"{command[:4]} failed: {done.stderr.decode()[-2000:]}")
    return elapsed
