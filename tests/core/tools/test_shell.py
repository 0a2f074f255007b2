"""Shell commands are bounded: a command past its time limit is killed with its children."""

from __future__ import annotations

import os
from pathlib import Path

from loki_desktop.core.tools.shell import run_command


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0): read its state
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split()[2] != "Z"


async def test_timeout_kills_the_command_and_its_children(workspace: Path) -> None:
    result = await run_command("sleep 30 & echo $! > child.pid; wait", workspace, time_limit_s=0.5)
    assert result.timed_out
    assert result.exit_code is None
    child = int((workspace / "child.pid").read_text())
    assert not _alive(child)


async def test_output_keeps_order_of_stdout_and_stderr(workspace: Path) -> None:
    result = await run_command("echo one; echo two >&2; echo three", workspace)
    assert result.output.splitlines() == ["one", "two", "three"]
    assert result.exit_code == 0
    assert not result.truncated
