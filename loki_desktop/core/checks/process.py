"""Running a checker program (ruff, node) on text piped to its stdin, bounded in time."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

TOOL_TIMEOUT_S = 20.0


@dataclass(frozen=True, slots=True)
class Completed:
    returncode: int
    stdout: str
    stderr: str


async def run_tool(
    argv: Sequence[str],
    stdin: bytes,
    *,
    env: Mapping[str, str] | None = None,
    time_limit_s: float = TOOL_TIMEOUT_S,
) -> Completed | None:
    """Run `argv` with `stdin`; None when it ran past `time_limit_s` (it is killed).

    Raises OSError when the program cannot be started.
    """
    process = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(env) if env is not None else None,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(stdin), time_limit_s)
    except TimeoutError:
        _kill(process)
        await process.wait()
        return None
    except BaseException:  # cancelled: never leave a checker running behind us
        _kill(process)
        raise
    assert process.returncode is not None
    return Completed(
        process.returncode,
        out.decode("utf-8", errors="replace"),
        err.decode("utf-8", errors="replace"),
    )


def _kill(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
