"""Runs `python -m loki_desktop` as a child process, as a user or a script would."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Callable
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


def ask_args(server: FakeOllama, workspace: Path, prompt: str, *extra: str) -> list[str]:
    """The arguments of `loki-desktop ask PROMPT --json` against the scripted server."""
    return ["ask", prompt, "--json", "--host", server.url, "--workspace", str(workspace), *extra]


def ask_json(
    server: FakeOllama, workspace: Path, home: Path, *extra: str, prompt: str = "Bonjour"
) -> CliRun:
    """`loki-desktop ask PROMPT --json` against the scripted server, in `workspace`."""
    return run_cli(*ask_args(server, workspace, prompt, *extra), home=home)


def kill_9_when(args: list[str], home: Path, seen: Callable[[dict[str, Any]], bool]) -> None:
    """Run `loki-desktop ARGS` (with --json) and kill -9 it as soon as `seen` holds for a
    line it printed; asserts it died of the kill."""
    with subprocess.Popen(
        [PYTHON, "-m", "loki_desktop", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=REPO,
        env=cli_env(home),
    ) as child:
        assert child.stdout is not None
        for line in child.stdout:
            if seen(json.loads(line)):
                break
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL


def quick_window(home: Path, prompt: str) -> subprocess.Popen[bytes]:
    """The window, offscreen (no display), asking `prompt` at once (`--quick`)."""
    env = cli_env(home, QT_QPA_PLATFORM="offscreen")
    env.pop("DISPLAY", None)
    return subprocess.Popen(
        [PYTHON, "-m", "loki_desktop", "--quick", prompt],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
