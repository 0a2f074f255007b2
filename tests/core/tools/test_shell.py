"""Shell commands are bounded: a command past its time limit is killed with its children."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
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
    """Whether `condition` holds within 60 s (a killed process takes a moment to be gone,
    longer on a loaded machine)."""
    deadline = time.monotonic() + 60
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


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


def _at_the_gate(pid: int) -> bool:
    """The shell is blocked reading its stdin: waiting for Loki to open the gate."""
    try:
        return "pipe_read" in Path(f"/proc/{pid}/wchan").read_text()
    except OSError:
        return False


async def test_a_stop_while_the_command_is_still_starting_kills_its_whole_group(
    workspace: Path,
) -> None:
    # What a loaded machine does: the shell is spawned, the loop has not yet connected its
    # pipes, and Stop lands then. The command waits at the gate until Loki has registered
    # its group with the guard, so it has not run; asyncio's own clean-up would kill the
    # shell alone and wait for the pipes: the whole group must go, and at once.
    before = set(_children())  # e.g. the shell guard, started by an earlier command
    task = asyncio.create_task(
        run_command("echo ran > ran.txt; sleep 120 & sleep 121; echo never", workspace)
    )
    deadline = time.monotonic() + 60
    while not (spawned := set(_children()) - before):  # one loop step at a time
        assert time.monotonic() < deadline, "the shell was not spawned"
        await asyncio.sleep(0)
    # the loop held (a blocking wait, on purpose) until the shell waits at the gate
    while not any(_at_the_gate(pid) for pid in spawned):
        assert time.monotonic() < deadline, f"the shell never waited at the gate: {spawned}"
        time.sleep(0.01)  # noqa: ASYNC251 - blocking the loop is the point here
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _eventually(lambda: not any(_group_alive(pid) for pid in spawned))
    assert not (workspace / "ran.txt").exists()


def test_a_loki_killed_before_it_registered_the_group_never_runs_the_command(
    workspace: Path,
) -> None:
    """kill -9 between spawning the shell and telling the guard of its group (a window a
    loaded machine widens): the guard cannot end a group it never heard of, so the command
    must not have started; the gate's pipe closes with Loki and the shell exits."""
    loki = (
        "import asyncio, os, signal\n"
        "from pathlib import Path\n"
        "from loki_desktop.core.tools.shell import start_shell\n"
        "async def main():\n"
        "    shell = await start_shell('echo ran > ran.txt; sleep 120', Path('.'))\n"
        "    Path('shell.pid').write_text(str(shell.pid))\n"
        "    os.kill(os.getpid(), signal.SIGKILL)  # before hold_then_go\n"
        "asyncio.run(main())\n"
    )
    child = subprocess.run([sys.executable, "-c", loki], cwd=workspace, timeout=120, check=False)
    assert child.returncode == -signal.SIGKILL
    shell = int((workspace / "shell.pid").read_text())
    ran = workspace / "ran.txt"
    try:
        deadline = time.monotonic() + 60
        while _group_alive(shell) and not ran.exists():
            assert time.monotonic() < deadline, "the shell neither ran nor ended"
            time.sleep(0.02)
        assert not ran.exists(), "the command ran with no guard holding its group"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(shell, signal.SIGKILL)
