"""Running one approved shell command in the workspace, bounded in time and output."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loki_desktop.core.procs.spawn import GUARD

SHELL_TIMEOUT_S = 60.0
OUTPUT_LIMIT_BYTES = 64_000
# Once the shell has exited, how long what it started in the background may keep the output
# open: past that, it is stopped (a server started with `&` would otherwise hold the turn
# until the time limit, then be killed anyway).
EXIT_GRACE_S = 1.0
# How often the shell's exit is looked at while the command runs.
POLL_S = 0.05
SHELL = "/bin/sh"  # what subprocess's shell=True runs on POSIX
# The shell waits at this gate (a line on its stdin) until Loki has registered its process
# group with the guard, then becomes the command's shell (exec: same process, same group)
# with the same stdin as before. End of input (Loki gone): the command never runs.
GATE = 'read -r _ || exit 125; exec "$0" -c "$1" < /dev/null'


@dataclass(frozen=True, slots=True)
class ShellResult:
    exit_code: int | None  # None when it was killed for running too long
    output: str
    timed_out: bool
    truncated: bool
    # processes the command left in the background still held the output: they were stopped
    stopped_children: bool = False


async def run_command(
    command: str, cwd: Path, time_limit_s: float = SHELL_TIMEOUT_S
) -> ShellResult:
    """Run `command` through the system shell; stdout and stderr are merged in order."""
    process = await start_shell(command, cwd)
    assert process.stdout is not None
    chunks: list[bytes] = []
    kept = 0
    truncated = False

    async def drain() -> None:
        nonlocal kept, truncated
        assert process.stdout is not None
        while block := await process.stdout.read(65_536):
            # keep reading past the limit so the command never blocks on a full pipe
            room = OUTPUT_LIMIT_BYTES - kept
            if room > 0:
                chunks.append(block[:room])
                kept += min(room, len(block))
            if len(block) > room:
                truncated = True

    loop = asyncio.get_running_loop()
    deadline = loop.time() + time_limit_s
    reader = asyncio.create_task(drain())
    # done once the shell has exited AND the output is closed (asyncio waits for both)
    exited = asyncio.create_task(process.wait())
    timed_out = stopped_children = ended = False
    try:
        hold_then_go(process)
        shell_gone_at: float | None = None
        while pending := {task for task in (reader, exited) if not task.done()}:
            now = loop.time()
            if shell_gone_at is None and process.returncode is not None:
                shell_gone_at = now  # yet something it started still holds the output
            if now >= deadline:
                timed_out = True
                break
            if shell_gone_at is not None and now >= shell_gone_at + EXIT_GRACE_S:
                stopped_children = True
                break
            timeout = min(POLL_S, deadline - now)
            await asyncio.wait(pending, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        ended = not (timed_out or stopped_children)
    finally:
        if not ended:  # too long, children holding the output, or the turn was cancelled
            _kill_tree(process)
        await _reap(reader, exited)
        _release_if_gone(process.pid)
    output = b"".join(chunks).decode("utf-8", errors="replace")
    return ShellResult(
        exit_code=None if timed_out else process.returncode,
        output=output,
        timed_out=timed_out,
        truncated=truncated,
        stopped_children=stopped_children,
    )


async def start_shell(command: str, cwd: Path) -> asyncio.subprocess.Process:
    """Start the shell in a process group of its own, the command held at the gate (POSIX).

    A Stop (cancel) while asyncio still connects the pipes would run asyncio's own clean-up:
    kill the shell alone, then wait for the pipes its children still hold (a `sleep 120 &`:
    two minutes). Instead the start is let finish, and the whole group is killed."""
    pipes: dict[str, Any] = {
        "cwd": cwd,
        "stdout": asyncio.subprocess.PIPE,
        "stderr": asyncio.subprocess.STDOUT,
    }
    if sys.platform == "win32":
        spawn = asyncio.create_subprocess_shell(command, stdin=asyncio.subprocess.DEVNULL, **pipes)
    else:
        # its own process group, so a timeout kills the children it started too
        spawn = asyncio.create_subprocess_exec(
            SHELL,
            "-c",
            GATE,
            SHELL,
            command,
            stdin=asyncio.subprocess.PIPE,
            start_new_session=True,
            **pipes,
        )
    starting = asyncio.ensure_future(spawn)
    try:
        return await asyncio.shield(starting)
    except asyncio.CancelledError:
        process = await starting
        _kill_tree(process)
        await _reap(asyncio.ensure_future(process.wait()))
        raise


def hold_then_go(process: asyncio.subprocess.Process) -> None:
    """Register the group with the guard, then open the gate: the command runs only once
    the guard knows its group. What it leaves running may outlive it, never Loki, however
    Loki exits (kill -9 included); a Loki killed before this point closes the gate's pipe,
    and the shell exits without running the command."""
    if sys.platform == "win32":
        return
    GUARD.hold(process.pid)
    assert process.stdin is not None
    with contextlib.suppress(OSError):  # the shell is gone already (killed): nothing to run
        process.stdin.write(b"go\n")
        process.stdin.close()


async def _reap(*tasks: asyncio.Task[Any]) -> None:
    """Let the reader take the last output and the shell be reaped. Bounded: a process that
    left the group (setsid) may hold the output even after the kill."""
    _done, pending = await asyncio.wait(tasks, timeout=EXIT_GRACE_S)
    for task in pending:
        task.cancel()


def _release_if_gone(pgid: int) -> None:
    """Nothing left in the group: the guard forgets it (the number may be reused)."""
    if sys.platform == "win32":
        return
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        GUARD.release(pgid)
    except PermissionError:
        pass


def _kill_tree(process: asyncio.subprocess.Process) -> None:
    """Kill the command's whole process group, even when the shell itself has exited
    (its background children are still in the group)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if sys.platform == "win32":
            process.kill()
        else:
            os.killpg(process.pid, signal.SIGKILL)
