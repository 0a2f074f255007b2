"""Measures the chat view: opening 1,000 messages, and streaming a 20,000-token answer.

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m tests.ui.measure_chat

Prints: time to first paint of a 1,000-message conversation; the longest event-loop
stall while a 20,000-token answer streams from the scripted Ollama server; the render
cost per token over the first and the last 2,000 tokens. Numbers, not assertions: the
tests check behaviour, this script tells how fast it is on this machine.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import qasync
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from loki_desktop.core.messages import ChatMessage
from loki_desktop.ui.collector import MainThreadCollector
from loki_desktop.ui.markdown_view import MarkdownView
from tests.fakes.demo_conversation import FINAL_ANSWER, words
from tests.fakes.ollama_server import FakeOllama, Reply

TOKENS = 20_000
MESSAGES = 1_000


async def measure() -> None:
    from loki_desktop.app import build_services
    from loki_desktop.ui.main_window import MainWindow
    from loki_desktop.ui.runtime import Runtime
    from loki_desktop.ui.theme import Theme

    services = build_services()
    with FakeOllama() as ollama:
        settings = services.settings.load()
        settings.host = ollama.url
        services.settings.save(settings)

        store = services.open_history()
        conversation = store.create("Longue conversation")
        for index in range(MESSAGES):
            role = "user" if index % 2 == 0 else "assistant"
            text = f"Question {index} ?" if role == "user" else FINAL_ANSWER
            store.append(conversation, ChatMessage(role, text))  # type: ignore[arg-type]

        runtime = Runtime(services)
        window = MainWindow(runtime, Theme("light"))
        window.resize(1280, 820)
        window.show()
        await window.start()
        collector = MainThreadCollector()  # as the app runs: collection in the GUI thread
        collector.start()
        collector.freeze()
        await asyncio.sleep(0.2)

        # --- 1. opening 1,000 messages -----------------------------------------------
        started = time.perf_counter()
        window.open_conversation(conversation)
        assert window.current is not None
        built = time.perf_counter()
        window.grab()  # lays out and paints the whole window now, as its first frame would
        painted = time.perf_counter()
        print(
            f"first paint of {MESSAGES} messages: {(painted - started) * 1000:.0f} ms "
            f"(widgets {(built - started) * 1000:.0f} ms, layout and paint "
            f"{(painted - built) * 1000:.0f} ms)"
        )
        print(f"  message widgets built: {len(window.current.view.items())} (one page)")

        # --- 2. streaming 20,000 tokens --------------------------------------------------
        pieces = words(FINAL_ANSWER)
        tokens = [pieces[i % len(pieces)] for i in range(TOKENS)]
        ollama.script(Reply.text(*tokens, token_delay=0.0004))

        gaps: list[float] = []
        last = time.perf_counter()

        def tick() -> None:
            nonlocal last
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

        timer = QTimer()
        timer.setInterval(5)
        timer.timeout.connect(tick)

        gc_log: list[tuple[str, int, float]] = []
        costs: list[tuple[int, float]] = []  # (tokens so far, seconds spent in that flush)
        original_flush = MarkdownView.flush

        def timed_flush(view: MarkdownView) -> None:
            before = time.perf_counter()
            count = len(view._parts)
            original_flush(view)
            costs.append((count, time.perf_counter() - before))

        MarkdownView.flush = timed_flush  # type: ignore[method-assign]
        window.new_conversation()
        window.composer.set_text("Écris une très longue réponse")
        started = time.perf_counter()
        timer.start()
        last = time.perf_counter()
        import gc

        gc.callbacks.append(
            lambda phase, info: gc_log.append((phase, info["generation"], time.perf_counter()))
        )
        window.composer.submit()
        session = window.current
        assert session is not None
        await session.runner.wait()
        timer.stop()
        total = time.perf_counter() - started
        MarkdownView.flush = original_flush  # type: ignore[method-assign]

        answer = session.view.items()[-1]
        print(f"streamed {TOKENS} tokens in {total:.1f} s ({TOKENS / total:.0f} tokens/s)")
        print(f"  longest event-loop stall: {max(gaps) * 1000:.1f} ms")
        print(f"  95th percentile tick gap: {sorted(gaps)[int(len(gaps) * 0.95)] * 1000:.1f} ms")
        print(f"  renders (flushes): {len(costs)}; answer widget: {type(answer).__name__}")
        starts = {g: t for p, g, t in gc_log if p == "start"}
        pauses = []
        for phase, generation, t in gc_log:
            if phase == "start":
                starts[generation] = t
            else:
                pauses.append((generation, (t - starts[generation]) * 1000))
        worst = max(pauses, key=lambda p: p[1], default=(0, 0.0))
        print(f"  garbage collections: {len(pauses)}, longest {worst[1]:.1f} ms (gen {worst[0]})")
        slowest = max(range(len(costs)), key=lambda i: costs[i][1])
        print(
            f"  longest render: {costs[slowest][1] * 1000:.1f} ms (render #{slowest + 1}, "
            f"at token {costs[slowest][0]}); next: "
            f"{sorted(c for _n, c in costs)[-2] * 1000:.1f} ms"
        )
        big = sorted(range(len(gaps)), key=lambda i: gaps[i])[-5:]
        print(f"  longest gap at tick {big[-1]} of {len(gaps)}")
        print(f"  five longest gaps (ms): {[round(gaps[i] * 1000, 1) for i in big]}")

        def per_token(lo: int, hi: int) -> float:
            chosen = [(n, c) for n, c in costs if lo <= n < hi]
            if len(chosen) < 2:
                return float("nan")
            spent = sum(c for _n, c in chosen)
            return spent / max(1, chosen[-1][0] - chosen[0][0]) * 1e6

        print(f"  render cost per token, first 2,000: {per_token(0, 2000):.1f} µs")
        print(
            f"  render cost per token, last 2,000:  {per_token(TOKENS - 2000, TOKENS + 1):.1f} µs"
        )
        early = [c for n, c in costs if n < 2000]
        late = [c for n, c in costs if n >= TOKENS - 2000]
        print(
            f"  median flush, early vs late: {statistics.median(early) * 1000:.2f} ms vs "
            f"{statistics.median(late) * 1000:.2f} ms"
        )
        await window.shutdown()
        await runtime.aclose()
        collector.stop()


def main() -> int:
    with tempfile.TemporaryDirectory() as home:
        os.environ["LOKI_HOME"] = str(Path(home))
        app = QApplication(sys.argv[:1])
        app.setQuitOnLastWindowClosed(False)
        with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
            runner.run(measure())
    return 0


if __name__ == "__main__":
    sys.exit(main())
