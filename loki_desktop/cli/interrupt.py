"""SIGINT, SIGTERM and SIGHUP end a headless command cleanly: its task is cancelled, its
clean-up runs, and it exits 128 + the signal's number (130, 143, 129)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


@dataclass
class Interruption:
    """Which signal stopped the command, if one did (set before the task is cancelled)."""

    signum: int | None = None
    handlers: list[int] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        assert self.signum is not None
        return 128 + self.signum


def run(main: Callable[[Interruption], Awaitable[int]]) -> int:
    """asyncio.run(main(...)); on a stop signal main's task is cancelled and the command
    exits 128 + signal once main has cleaned up. A second signal ends it at once."""
    interruption = Interruption()

    async def runner() -> int:
        task = asyncio.current_task()
        assert task is not None
        _listen(interruption, task)
        try:
            return await main(interruption)
        except asyncio.CancelledError:
            if interruption.signum is None:
                raise
            return interruption.exit_code
        finally:
            _stop_listening(interruption)

    try:
        code = asyncio.run(runner())
    except KeyboardInterrupt:  # a Ctrl+C before the loop listened, or where it cannot
        return 128 + signal.SIGINT
    return interruption.exit_code if interruption.signum is not None else code


def _listen(interruption: Interruption, task: asyncio.Task[int]) -> None:
    loop = asyncio.get_running_loop()

    def on_signal(signum: int) -> None:
        if interruption.signum is not None:
            # asked twice: no more waiting on the clean-up
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        interruption.signum = signum
        task.cancel()

    if sys.platform == "win32":  # no add_signal_handler there: Ctrl+C raises as usual
        return
    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, on_signal, signum)
        interruption.handlers.append(signum)


def _stop_listening(interruption: Interruption) -> None:
    loop = asyncio.get_running_loop()
    for signum in interruption.handlers:
        loop.remove_signal_handler(signum)
    interruption.handlers.clear()
