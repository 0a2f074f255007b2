"""Helpers for the window tests: open a real window inside the test, wait for conditions."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from loki_desktop.core.services import Services
from loki_desktop.ui.runtime import Runtime
from loki_desktop.ui.theme import Theme
from loki_desktop.ui.window.main_window import MainWindow


async def wait_until(predicate: Callable[[], object], within: float = 30.0, what: str = "") -> None:
    """Let the loop run until `predicate()` is true (a functional deadline, not a timing)."""
    end = time.monotonic() + within
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError(what or f"condition not met within {within} s")
        await asyncio.sleep(0.01)


def set_host(services: Services, host: str) -> None:
    settings = services.settings.load()
    settings.host = host
    services.settings.save(settings)


async def no_tasks_left(within: float = 10.0) -> None:
    """Every task but the test's own has ended (servers closed, turns stopped)."""

    def others() -> list[asyncio.Task[Any]]:
        me = asyncio.current_task()
        return [t for t in asyncio.all_tasks() if t is not me and not t.done()]

    await wait_until(lambda: not others(), within, f"tasks left running: {others()}")


@contextlib.asynccontextmanager
async def open_runtime(services: Services, host: str | None = None) -> AsyncIterator[Runtime]:
    if host is not None:
        set_host(services, host)
    runtime = Runtime(services)
    try:
        yield runtime
    finally:
        await runtime.aclose()


@contextlib.asynccontextmanager
async def open_window(
    services: Services, qtbot: Any, host: str | None = None, theme: str = "light"
) -> AsyncIterator[MainWindow]:
    """A main window over a fresh runtime, as the app builds it; closed and drained after."""
    async with open_runtime(services, host) as runtime:
        window = MainWindow(runtime, Theme(theme))
        qtbot.addWidget(window)
        window.show()
        await window.start()
        try:
            yield window
        finally:
            await window.shutdown()
            window.keep_in_tray = False
            window.close()
    await no_tasks_left()
