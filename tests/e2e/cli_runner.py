"""Runs `python -m loki_desktop` as a child process, as a user or a script would."""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import PYTHON, REPO, cli_env
from tests.fakes.ollama_server import FakeOllama


@dataclass
class CliRun:
    code: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def events(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [event for event in self.events if event["type"] == kind]


def run_cli(
    *args: str,
    home: Path,
    timeout: float = 60,
    python_flags: tuple[str, ...] = (),
    **env: str,
) -> CliRun:
    start = time.monotonic()
    child = subprocess.run(
        [PYTHON, *python_flags, "-m", "loki_desktop", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=cli_env(home, **env),
        timeout=timeout,
        check=False,
    )
    return CliRun(child.returncode, child.stdout, child.stderr, time.monotonic() - start)


def ask_json(
    server: FakeOllama, workspace: Path, home: Path, *extra: str, prompt: str = "Bonjour"
) -> CliRun:
    """`loki-desktop ask PROMPT --json` against the scripted server, in `workspace`."""
    return run_cli(
        "ask",
        prompt,
        "--json",
        "--host",
        server.url,
        "--workspace",
        str(workspace),
        *extra,
        home=home,
    )
