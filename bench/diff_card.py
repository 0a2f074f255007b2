"""Diff cards: a write whose diff has 1,000 lines, rendered in its tool card (offscreen Qt).

"Renders" is what the window does when the result arrives, in a real chat view (1000 x 800,
offscreen): `set_tool_result` with the change (rows parsed, the first 40 lines laid out,
`+N −M` in the header), then the view painted once (`grab`, which lays out and paints what
the chat shows). Also measured: unfolding all 1,000 lines
("Tout voir"), and computing the change itself (difflib, in the tool's worker thread).

    python -m bench.diff_card --child      # prints the measurements as JSON on stdout
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from typing import Any

from bench.child import run_child
from bench.figures import Figure

RUNS = 9
HALF = 500  # 500 lines removed, 500 added: a 1,000-line diff


def measure() -> list[Figure]:
    data = run_child("bench.diff_card")
    rows = f"{data['rows']:,} diff lines"
    return [
        Figure(
            "Diff cards",
            "1,000-line diff card renders (folded to 40 lines)",
            data["card_ms"],
            "ms",
            50.0,
            runs=RUNS,
            note=rows,
            samples=data["card_samples"],
        ),
        Figure(
            "Diff cards",
            "the same card with all lines shown (Tout voir)",
            data["unfold_ms"],
            "ms",
            50.0,
            runs=RUNS,
            samples=data["unfold_samples"],
        ),
        Figure(
            "Diff cards",
            "a new 1,000-line Python file as highlighted code (folded)",
            data["new_ms"],
            "ms",
            50.0,
            runs=RUNS,
        ),
        Figure(
            "Diff cards",
            "that new file with all lines shown (Tout voir)",
            data["new_unfold_ms"],
            "ms",
            50.0,
            runs=RUNS,
            note="lines past the first 40 plain at first",
        ),
        Figure(
            "Diff cards",
            "then coloured in the background: until done",
            data["colour_ms"],
            "ms",
            None,
            runs=RUNS,
            note=f"longest event-loop turn meanwhile {data['colour_slice_ms']:.0f} ms",
        ),
        Figure(
            "Diff cards",
            "computing that change (difflib, worker thread)",
            data["compute_ms"],
            "ms",
            None,
            runs=RUNS,
        ),
    ]


def _sources() -> tuple[bytes, bytes]:
    old = "".join(f"    value_{i} = compute(alpha, beta, {i})  # old\n" for i in range(HALF))
    new = "".join(f"    result_{i} = transform(gamma, {i * 7})  # new\n" for i in range(HALF))
    return old.encode(), new.encode()


def _child() -> dict[str, Any]:
    from PySide6.QtWidgets import QApplication

    from loki_desktop.core.tools.diffs import compute_change
    from loki_desktop.ui.text.markdown_render import MarkdownRenderer
    from loki_desktop.ui.theme import LIGHT

    app = QApplication.instance() or QApplication(sys.argv[:1])
    renderer = MarkdownRenderer(LIGHT, "Copier")
    old, new = _sources()
    compute: list[float] = []
    for _ in range(RUNS):
        began = time.perf_counter()
        change = compute_change("src/module.py", old, new)
        compute.append(time.perf_counter() - began)
    card_ms, unfold_ms, rows, _colour = _render(app, renderer, change)
    added = compute_change("src/new_module.py", None, old + new)
    new_ms, new_unfold_ms, _rows, colour = _render(app, renderer, added)
    return {
        "rows": rows,
        "card_ms": statistics.median(card_ms),
        "card_samples": card_ms,
        "unfold_ms": statistics.median(unfold_ms),
        "unfold_samples": unfold_ms,
        "compute_ms": statistics.median(compute) * 1000,
        "new_ms": statistics.median(new_ms),
        "new_unfold_ms": statistics.median(new_unfold_ms),
        "colour_ms": statistics.median(t for t, _slice in colour),
        "colour_slice_ms": statistics.median(s for _t, s in colour),
    }


def _render(
    app: Any, renderer: Any, change: Any
) -> tuple[list[float], list[float], int, list[tuple[float, float]]]:
    """Milliseconds to show the change in a fresh card of a chat view, then to unfold it; its
    line count; and for a new file, how long its background colouring took and its longest
    event-loop turn meanwhile."""
    from loki_desktop.ui.chat.view import ChatView

    card_times: list[float] = []
    unfold_times: list[float] = []
    colour: list[tuple[float, float]] = []
    rows = 0
    for run in range(RUNS + 1):  # the first run pays the imports and font caches: dropped
        view = ChatView(renderer)
        view.resize(1000, 800)
        view.show()
        card = view.add_tool_call(f"c{run}", "write_file", {"path": change.path})
        app.processEvents()
        began = time.perf_counter()
        view.set_tool_result(card.call_id, True, "écrit", "ok", (), change)
        view.grab()  # lays out and paints what the chat shows
        card_times.append(time.perf_counter() - began)
        shown = card.change_view
        assert shown is not None
        rows = shown.total_lines
        began = time.perf_counter()
        shown.toggle_fold()
        view.grab()
        unfold_times.append(time.perf_counter() - began)
        colour.append(_colouring(app, shown))
        view.close()
        view.deleteLater()
        app.processEvents()
    return (
        [t * 1000 for t in card_times[1:]],
        [t * 1000 for t in unfold_times[1:]],
        rows,
        colour[1:],
    )


def _colouring(app: Any, view: Any) -> tuple[float, float]:
    """Run the event loop until the view's background colouring ends: total and longest turn
    (milliseconds)."""
    began = time.perf_counter()
    longest = 0.0
    while view.colouring:
        turn = time.perf_counter()
        app.processEvents()
        longest = max(longest, time.perf_counter() - turn)
    return (time.perf_counter() - began) * 1000, longest * 1000


if __name__ == "__main__" and sys.argv[1:] == ["--child"]:
    print(json.dumps(_child()), flush=True)
