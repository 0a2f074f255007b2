"""The chat view: a 20,000-token answer streamed at 200 tokens/s, and a 1,000-message history.

Runs in a child process (offscreen Qt, qasync, a fresh data folder), the window built as
the app builds it (Runtime, MainWindow, the main-thread garbage collector). The answer
comes from the scripted Ollama server through the real client, agent and turn runner.

Streaming: a 5 ms Qt timer ticks on the event loop; the longest gap between two ticks is
the longest time the window could not react (the figure counts the 5 ms interval in). The
cost per token is the GUI thread's CPU time (time.thread_time: parsing the stream, the
agent, rendering, layout, painting, garbage collection) between the render that passed
1,000 tokens and the first one, against the same over the last 1,000 tokens. The render
alone (MarkdownView.flush) is reported too.

History: a conversation of 1,000 messages (questions, Markdown answers with code and
tables, tool calls and their results) is opened; the time runs until the window's next
frame is done (its first UpdateRequest after the open handled: every changed widget
painted and flushed). Repeated, median.

    python -m bench.chat --child      # prints the measurements as JSON on stdout
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

from bench.child import offscreen_env, run_child
from bench.figures import Figure, median_of

TOKENS = 20_000
RATE = 200  # tokens a second, as the issue sets it
WINDOW = 1_000  # tokens at each end whose cost is compared
MESSAGES = 1_000
OPEN_RUNS = 7
TICK_MS = 5


def measure() -> list[Figure]:
    with tempfile.TemporaryDirectory() as home:
        data = run_child("bench.chat", env=offscreen_env(home))
    return _figures(data)


def _figures(data: dict[str, Any]) -> list[Figure]:
    s = data["stream"]
    return [
        Figure(
            "Streaming",
            f"{TOKENS:,} tokens at {RATE}/s: longest event-loop stall",
            s["max_gap_ms"],
            "ms",
            50.0,
            note=f"gap between {TICK_MS} ms ticks; 99th pct {s['p99_gap_ms']:.1f} ms; "
            f"{s['rate']:.0f} tokens/s achieved",
        ),
        Figure("Streaming", f"GUI CPU per token, first {WINDOW:,}", s["first_us"], "µs", None),
        Figure("Streaming", f"GUI CPU per token, last {WINDOW:,}", s["last_us"], "µs", None),
        Figure(
            "Streaming",
            "cost per token, last / first 1,000",
            s["last_us"] / s["first_us"],
            "x",
            1.5,
            note=f"render alone: {s['render_first_us']:.0f} -> "
            f"{s['render_last_us']:.0f} µs/token ({s['renders']} renders)",
        ),
        Figure(
            "History",
            f"opening a {MESSAGES:,}-message conversation, first paint",
            median_of(data["open_ms"]),
            "ms",
            300.0,
            runs=len(data["open_ms"]),
            note=f"first open {data['open_ms'][0]:.0f} ms (Markdown modules imported); "
            f"{data['widgets']} message widgets (one page)",
        ),
    ]


# --- the child ------------------------------------------------------------------------------


@dataclass
class FlushLog:
    """(tokens so far, GUI thread CPU seconds at the start, seconds spent rendering)."""

    rows: list[tuple[int, float, float]] = field(default_factory=list)

    def per_token_us(self, lo: int, hi: int) -> tuple[float, float]:
        """GUI CPU and render time per token between the flushes that bracket [lo, hi]."""
        first = next(i for i, row in enumerate(self.rows) if row[0] >= lo)
        last = next(i for i, row in enumerate(self.rows) if row[0] >= hi)
        tokens = self.rows[last][0] - self.rows[first][0]
        cpu = self.rows[last][1] - self.rows[first][1]
        render = sum(row[2] for row in self.rows[first:last])
        return cpu / tokens * 1e6, render / tokens * 1e6


def history_conversation(store: Any, messages: int) -> str:
    """A conversation of `messages` messages: questions, Markdown answers (a heading, code,
    a table, a list), and every fifth exchange a tool call with its result."""
    from loki_desktop.core.message_meta import MessageMeta
    from loki_desktop.core.messages import CallRecord, ChatMessage
    from tests.fakes.demo_conversation import FINAL_ANSWER, SALES_CSV

    conversation = store.create("Longue conversation")
    count = 0
    exchange = 0
    while count < messages:
        store.append(conversation, ChatMessage("user", f"Question {exchange} : et ensuite ?"))
        count += 1
        if exchange % 5 == 4 and count + 3 <= messages:
            call = CallRecord(f"call_{exchange}", "read_file", {"path": "ventes.csv"})
            store.append(conversation, ChatMessage("assistant", "", tool_calls=(call,)))
            store.append(
                conversation,
                ChatMessage(
                    "tool",
                    SALES_CSV,
                    tool_call_id=call.id,
                    tool_name=call.name,
                    meta=MessageMeta(summary="ventes.csv lu (7 lignes)"),
                ),
            )
            count += 2
        store.append(conversation, ChatMessage("assistant", FINAL_ANSWER))
        count += 1
        exchange += 1
    return str(conversation)


async def _first_paint(window: Any, conversation: str) -> float:
    from PySide6.QtCore import QEvent, QObject, QTimer

    loop = asyncio.get_running_loop()
    painted: asyncio.Future[float] = loop.create_future()

    def done() -> None:
        if not painted.done():
            painted.set_result(time.perf_counter())

    class Watch(QObject):
        """The window's UpdateRequest paints every dirty widget and flushes the frame."""

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.UpdateRequest:
                QTimer.singleShot(0, done)
            return False

    watch = Watch()
    window.installEventFilter(watch)
    began = time.perf_counter()
    window.sessions.open_conversation(conversation)
    end = await asyncio.wait_for(painted, 10)
    window.removeEventFilter(watch)
    return (end - began) * 1000


async def _child() -> dict[str, Any]:
    from PySide6.QtCore import QTimer

    from loki_desktop.app import build_services
    from loki_desktop.core.settings import Settings
    from loki_desktop.core.settings_changes import take_in
    from loki_desktop.ui.chat.markdown_view import MarkdownView
    from loki_desktop.ui.collector import MainThreadCollector
    from loki_desktop.ui.runtime import Runtime
    from loki_desktop.ui.theme import Theme
    from loki_desktop.ui.window.main_window import MainWindow
    from tests.fakes.demo_conversation import FINAL_ANSWER, words
    from tests.fakes.ollama_server import FakeOllama, Reply

    services = build_services()
    with FakeOllama() as ollama:
        wanted = Settings(host=ollama.url, model="qwen2.5-coder:7b")
        services.settings.update(lambda current: take_in(current, wanted))
        store = services.open_history()
        conversation = history_conversation(store, MESSAGES)
        store.close()

        runtime = Runtime(services)
        window = MainWindow(runtime, Theme("light"))
        window.resize(1240, 820)
        window.show()
        collector = MainThreadCollector()
        collector.start()
        await window.start()
        collector.freeze()
        await asyncio.sleep(0.3)

        # --- history ------------------------------------------------------------------
        opens = []
        for index in range(OPEN_RUNS):
            print(f"  history open {index + 1}/{OPEN_RUNS}", file=sys.stderr, flush=True)
            opens.append(await _first_paint(window, conversation))
            assert window.sessions.current is not None
            widgets = len(window.sessions.current.view.items())
            window.sessions.new_conversation()  # drops the view: the next open builds it again
            await asyncio.sleep(0.2)

        # --- streaming ----------------------------------------------------------------
        pieces = words(FINAL_ANSWER)
        ollama.script(
            Reply.text(*[pieces[i % len(pieces)] for i in range(TOKENS)], token_delay=1 / RATE)
        )
        log = FlushLog()
        original_flush = MarkdownView.flush

        def timed_flush(view: MarkdownView) -> None:
            cpu = time.thread_time()
            began = time.perf_counter()
            original_flush(view)
            log.rows.append((len(view._parts), cpu, time.perf_counter() - began))

        gaps: list[float] = []
        last = time.perf_counter()

        def tick() -> None:
            nonlocal last
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

        timer = QTimer()
        timer.setInterval(TICK_MS)
        timer.timeout.connect(tick)
        MarkdownView.flush = timed_flush  # type: ignore[method-assign,assignment]
        print(f"  streaming {TOKENS:,} tokens at {RATE}/s ...", file=sys.stderr, flush=True)
        try:
            window.composer.set_text("Écris une très longue réponse")
            began = time.perf_counter()
            last = began
            timer.start()
            window.composer.submit()
            session = window.sessions.current
            assert session is not None
            await session.runner.wait()
            timer.stop()
            elapsed = time.perf_counter() - began
        finally:
            MarkdownView.flush = original_flush  # type: ignore[method-assign]
        streamed = log.rows[-1][0]
        if streamed < TOKENS:
            raise RuntimeError(f"only {streamed} tokens reached the view")
        first_us, render_first = log.per_token_us(log.rows[0][0], log.rows[0][0] + WINDOW)
        last_us, render_last = log.per_token_us(streamed - WINDOW, streamed)
        gaps.sort()
        await window.shutdown()
        await runtime.aclose()
        collector.stop()
    return {
        "open_ms": opens,
        "widgets": widgets,
        "stream": {
            "max_gap_ms": gaps[-1] * 1000,
            "p99_gap_ms": gaps[int(len(gaps) * 0.99)] * 1000,
            "rate": streamed / elapsed,
            "first_us": first_us,
            "last_us": last_us,
            "render_first_us": render_first,
            "render_last_us": render_last,
            "renders": len(log.rows),
        },
    }


def child_main() -> int:
    import qasync
    from PySide6.QtWidgets import QApplication

    app = QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
        result = runner.run(_child())
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__" and sys.argv[1:] == ["--child"]:
    sys.exit(child_main())
