"""A streamed answer leaves no loop timer per chunk behind (issue 23).

On the qasync loop every `call_later`/`call_at` is an `asyncio.Handle` held by a Qt timer
until its deadline, even once cancelled. A read timeout on each socket read used to leave
one such handle per streamed chunk for ten minutes. Counting the live handles before and
after a long answer, through the real window, turn and HTTP stack, shows what stays.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from typing import Any

import pytest

from loki_desktop.core.mcp.config import ServerConfig
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.core.services import Services
from loki_desktop.persistence.secrets import KeyringSecrets
from loki_desktop.ui.window.main_window import MainWindow
from tests.core.mcp.conftest import _http_server, stdio
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.helpers import open_window, wait_until

CHUNKS = 300
CALLS = 40


def live_handles() -> int:
    """Callbacks the loop still holds: on qasync, the pending (or cancelled) Qt timers."""
    gc.collect()
    return sum(1 for obj in gc.get_objects() if type(obj) is asyncio.Handle)


async def send_and_wait(window: MainWindow, text: str) -> None:
    window.composer.set_text(text)
    window.composer.submit()
    await wait_until(
        lambda: window.sessions.current is not None and not window.sessions.current.runner.busy, 30
    )


async def test_a_long_answer_leaves_no_timer_per_chunk(
    ollama: FakeOllama, qtbot: Any, services: Services
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        # a first turn builds what is built once (client, connection, the watchdog's timer)
        ollama.script(Reply.text("Prêt."))
        await send_and_wait(window, "Bonjour")
        before = live_handles()

        # a pause between lines, as a model streams: each line is a socket read of its own
        ollama.script(Reply.text(*[f"mot{i} " for i in range(CHUNKS)], token_delay=0.003))
        await send_and_wait(window, "Raconte une longue histoire")
        assert window.sessions.current is not None
        assert "mot299" in window.sessions.current.view.items()[-1].markdown()  # type: ignore[attr-defined]

        # a constant few (the view's throttled repaints, this test's own waits), not ~CHUNKS
        assert live_handles() - before < 30


@pytest.fixture
def http_echo() -> Iterator[str]:
    with _http_server("echo") as url:
        yield url


@pytest.mark.parametrize(("tool", "most"), [("mcp_web_echo", 2), ("mcp_echo_echo", 1)])
async def test_an_mcp_call_leaves_no_timer_per_read(http_echo: str, tool: str, most: int) -> None:
    """What stays per call: its request timeout (the SDK's, 30 s), over HTTP the connect
    timeout of its connection; not one per socket read or write (with httpx's read and write
    timeouts: ~6 per call, held up to 5 min). The slack is the short timers of the moment."""
    servers = {
        "web": ServerConfig("web", "http", True, url=http_echo),
        "echo": stdio("echo", "echo"),
    }
    manager = McpManager(servers, KeyringSecrets())
    try:
        assert await manager.prepare() == []
        assert (await manager.call(tool, {"text": "x"})).ok  # the connection is made
        before = live_handles()
        for _ in range(CALLS):
            assert (await manager.call(tool, {"text": "x"})).ok
        assert live_handles() - before <= (most + 1) * CALLS
    finally:
        await manager.aclose()
