"""Running one approved shell command in the workspace, bounded in time and output."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

SHELL_TIMEOUT_S = 60.0
OUTPUT_LIMIT_BYTES = 64_000


@dataclass(frozen=True, slots=True)
class ShellResult:
    exit_code: int | None  # None when it was killed for running too long
    output: str
    timed_out: bool
    truncated: bool


async def run_command(
    command: str, cwd: Path, time_limit_s: float = SHELL_TIMEOUT_S
) -> ShellResult:
    """Run `command` through the system shell; stdout and stderr are merged in order."""
    process = await asyncio.create_subprocess_shell(
        command,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        # its own process group, so a timeout kills the children it started too
        start_new_session=sys.platform != "win32",
    )
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
        await process.wait()

    timed_out = False
    try:
        await asyncio.wait_for(drain(), time_limit_s)
    except TimeoutError:
        timed_out = True
        _kill_tree(process)
        with contextlib.suppress(ProcessLookupError):
            await process.wait()
    except asyncio.CancelledError:
        _kill_tree(process)
        raise
    output = b"".join(chunks).decode("utf-8", errors="replace")
    return ShellResult(
        exit_code=None if timed_out else process.returncode,
        output=output,
        timed_out=timed_out,
        truncated=truncated,
    )


def _kill_tree(process: asyncio.subprocess.Process) -> None:
    if process.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if sys.platform == "win32":
            process.kill()
        else:
            os.killpg(process.pid, signal.SIGKILL)
