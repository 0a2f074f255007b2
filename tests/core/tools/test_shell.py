"""Shell commands are bounded: a command past its time limit is killed with its children."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

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


def _children() -> list[int]:
    """Live child processes of this one."""
    me = str(os.getpid())
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def _group_alive(pgid: int) -> list[int]:
    """Live (not zombie) processes of a process group."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(int(stat.parent.name))
    return alive


async def _eventually(condition: Callable[[], bool]) -> bool:
    """Whether `condition` holds within 10 s (a killed process takes a moment to be gone)."""
    for _ in range(500):
        if condition():
            return True
        await asyncio.sleep(0.02)
    return condition()


def _group_gone(pid_file: Path) -> Callable[[], bool]:
    return lambda: not _group_alive(int(pid_file.read_text()))


async def test_timeout_kills_background_children_after_the_shell_exited(workspace: Path) -> None:
    # the shell exits at once; `sleep` keeps the output pipe open past the limit
    result = await run_command(
        "echo $$ > shell.pid; sleep 120 & echo started", workspace, time_limit_s=0.5
    )
    assert result.output == "started\n"
    assert await _eventually(_group_gone(workspace / "shell.pid"))


async def test_a_finished_shell_does_not_wait_for_children_holding_its_output(
    workspace: Path,
) -> None:
    result = await run_command("echo $$ > shell.pid; sleep 120 & echo started", workspace)
    assert not result.timed_out  # did not wait the 60 s limit: the shell had exited
    assert result.exit_code == 0
    assert result.stopped_children
    assert result.output == "started\n"
    assert await _eventually(_group_gone(workspace / "shell.pid"))


async def test_background_children_with_their_own_output_are_left_alone(workspace: Path) -> None:
    result = await run_command("sleep 120 > /dev/null 2>&1 & echo $! > child.pid", workspace)
    child = int((workspace / "child.pid").read_text())
    try:
        assert result.exit_code == 0
        assert not result.stopped_children
        assert _alive(child)  # detached on purpose: not the tool's to stop
    finally:
        os.kill(child, signal.SIGKILL)


async def test_cancelling_a_command_kills_its_whole_group(workspace: Path) -> None:
    task = asyncio.create_task(
        run_command("echo $$ > shell.pid; sleep 120 & sleep 121; echo never", workspace)
    )
    pid_file = workspace / "shell.pid"
    assert await _eventually(lambda: pid_file.exists() and pid_file.read_text().endswith("\n"))
    # the shell and both sleeps have started
    assert await _eventually(lambda: len(_group_alive(int(pid_file.read_text()))) == 3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _eventually(_group_gone(pid_file))


async def test_a_stop_while_the_command_is_still_starting_kills_its_whole_group(
    workspace: Path,
) -> None:
    # What a loaded machine does: the shell runs and starts its children before the loop
    # has connected its pipes, and Stop lands then. asyncio's own clean-up kills the shell
    # alone; its children must not outlive the turn.
    before = set(_children())  # e.g. the shell guard, started by an earlier command
    task = asyncio.create_task(
        run_command("echo $$ > shell.pid; sleep 120 & sleep 121; echo never", workspace)
    )
    deadline = time.monotonic() + 30
    while not set(_children()) - before:  # one loop step at a time until the shell is spawned
        assert time.monotonic() < deadline, "the shell was not spawned"
        await asyncio.sleep(0)
    pid_file = workspace / "shell.pid"
    # the loop held (a blocking wait, on purpose) until the shell and both sleeps run
    while not (pid_file.exists() and len(_group_alive(int(pid_file.read_text() or 0))) == 3):
        assert time.monotonic() < deadline, "the shell did not start its children"
        time.sleep(0.01)  # noqa: ASYNC251 - blocking the loop is the point here
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _eventually(_group_gone(pid_file))
