"""A command piped into a reader that stops early (`| head -1`) ends quietly, with no traceback."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import PYTHON, REPO, cli_env

COMMANDS = [
    ["mcp", "list"],
    ["skills", "--explain", "corrige ce bug dans mon script Python"],
]


def run_into_closed_pipe(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    """Runs the command with its stdout a pipe whose reader is already gone: its first
    write fails with EPIPE, as when `head -1` has read its line and left."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [PYTHON, "-m", "loki_desktop", *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env=cli_env(home),
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_a_closed_stdout_ends_the_command_quietly(args: list[str], tmp_path: Path) -> None:
    child = run_into_closed_pipe(args, tmp_path)
    assert "Traceback" not in child.stderr
    assert "BrokenPipeError" not in child.stderr
    assert child.returncode == 1  # the output was not all delivered: not a success


@pytest.mark.parametrize("args", [["--help"], ["ask", "--help"]], ids=" ".join)
def test_help_into_a_closed_pipe_prints_no_traceback(args: list[str], tmp_path: Path) -> None:
    child = run_into_closed_pipe(args, tmp_path)
    assert "Traceback" not in child.stderr  # argparse itself gives up on the write quietly
    assert child.returncode == 0


def test_an_open_stdout_still_gets_everything(tmp_path: Path) -> None:
    child = subprocess.run(
        [PYTHON, "-m", "loki_desktop", "mcp", "list"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=cli_env(tmp_path),
        timeout=120,
        check=False,
    )
    assert child.returncode == 0, child.stderr
    assert "fetch" in child.stdout  # a catalogue server, listed whole
