"""A streamed answer leaves no loop timer per chunk behind (issue 23).

On the qasync loop every `call_later`/`call_at` is an `asyncio.Handle` held by a Qt timer
until its deadline, even once cancelled. A read timeout on each socket read used to leave
one such handle per streamed chunk for ten minutes. Counting the live handles before and
after a long answer, through the real window, turn and HTTP stack, shows what stays.
"""

from __future__ import annotations

import asyncio
import gc
from typing import Any

from loki_desktop.core.services import Services
from loki_desktop.ui.main_window import MainWindow
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.helpers import open_window, wait_until

CHUNKS = 300


def live_handles() -> int:
    """Callbacks the loop still holds: on qasync, the pending (or cancelled) Qt timers."""
    gc.collect()
    return sum(1 for obj in gc.get_objects() if type(obj) is asyncio.Handle)


async def send_and_wait(window: MainWindow, text: str) -> None:
    window.composer.set_text(text)
    window.composer.submit()
    await wait_until(lambda: window.current is not None and not window.current.runner.busy, 30)


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
        assert window.current is not None
        assert "mot299" in window.current.view.items()[-1].markdown()  # type: ignore[attr-defined]

        # a constant few (the view's throttled repaints, this test's own waits), not ~CHUNKS
        assert live_handles() - before < 30
