"""The Réflexion block: 20,000 reasoning chunks at 200/s, repaints a second and cost per chunk.

Runs in a child process (offscreen Qt, qasync). The chunks go to a real ChatView through
its `append_thinking` mutator, as the turn runner sends them; the block writes them at most
~30 times a second. The cost per chunk is the GUI thread's CPU time over the first 1,000
chunks against the last 1,000 (the block then holds ~150,000 characters): it must not
grow with the length of the reasoning.

    python -m bench.thinking_view --child      # prints the measurements as JSON on stdout
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any

from bench.child import run_child
from bench.figures import Figure

CHUNKS = 20_000
RATE = 200  # chunks a second
WINDOW = 1_000


def measure() -> list[Figure]:
    data = run_child("bench.thinking_view")
    return [
        Figure(
            "Reasoning",
            f"{CHUNKS:,} reasoning chunks at {RATE}/s: repaints a second",
            data["repaints_per_s"],
            "/s",
            31.0,
            note=f"{data['repaints']} writes for {CHUNKS:,} chunks",
        ),
        Figure("Reasoning", f"GUI CPU per chunk, first {WINDOW:,}", data["first_us"], "µs", None),
        Figure("Reasoning", f"GUI CPU per chunk, last {WINDOW:,}", data["last_us"], "µs", None),
        Figure(
            "Reasoning",
            "cost per chunk, last / first 1,000",
            data["last_us"] / data["first_us"],
            "x",
            1.5,
            note=f"{data['chars']:,} characters of reasoning at the end",
        ),
    ]


async def _child() -> dict[str, Any]:
    from loki_desktop.ui.chat.view import ChatView
    from loki_desktop.ui.text.markdown_render import MarkdownRenderer
    from loki_desktop.ui.theme import LIGHT

    view = ChatView(MarkdownRenderer(LIGHT, "Copier"))
    view.resize(1000, 800)
    view.show()
    piece = "Je vérifie la piste suivante, "  # ~30 characters, a few tokens
    marks: list[float] = []
    began = time.perf_counter()
    for index in range(CHUNKS):
        if index in (0, WINDOW, CHUNKS - WINDOW, CHUNKS - 1):
            marks.append(time.thread_time())
        view.append_thinking(piece)
        # the next chunk arrives 1/RATE after this one was due: the loop runs meanwhile
        delay = began + (index + 1) / RATE - time.perf_counter()
        await asyncio.sleep(max(0.0, delay))
    elapsed = time.perf_counter() - began
    block = view.thinking_block
    assert block is not None
    block.flush()
    return {
        "first_us": (marks[1] - marks[0]) / WINDOW * 1e6,
        "last_us": (marks[3] - marks[2]) / (WINDOW - 1) * 1e6,
        "repaints": block.repaints,
        "repaints_per_s": block.repaints / elapsed,
        "chars": len(block.text()),
    }


def child_main() -> int:
    import qasync
    from PySide6.QtWidgets import QApplication

    app = QApplication(sys.argv[:1])
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
        result = runner.run(_child())
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__" and sys.argv[1:] == ["--child"]:
    sys.exit(child_main())
