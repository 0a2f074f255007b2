"""What goes into a message: a page of 50 formulas drawn, a 200-page PDF read, AGENTS.md absent.

The formulas are 50 different ones (nothing drawn before), rendered to HTML by the answer's
renderer and laid out in a real message view (each image drawn by QtSvg), in a child
process (offscreen Qt). The PDF is made here: 200 pages of text, read by the attachment
loader in a worker thread as the window does. AGENTS.md absent costs one stat per turn.

    python -m bench.messages --child      # the formula page, as JSON on stdout
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.child import run_child
from bench.figures import Figure, median_of

FORMULAS = 50
PDF_PAGES = 200
RUNS = 3
STAT_CALLS = 10_000


def measure() -> list[Figure]:
    page = run_child("bench.messages")
    pdf_s, chars = _pdf_seconds()
    absent_us = _absent_agents_md_us()
    return [
        Figure(
            "Messages",
            f"a page of {FORMULAS} formulas rendered and laid out",
            page["ms"],
            "ms",
            300.0,
            note=(
                f"ziamath {page['draw_ms']:.0f} ms of it; GUI thread CPU "
                f"{page['cpu_ms']:.0f} ms; {page['images']} images"
            ),
        ),
        Figure(
            "Messages",
            f"a {PDF_PAGES}-page PDF's text extracted (worker thread)",
            pdf_s,
            "s",
            5.0,
            runs=RUNS,
            note=f"{chars:,} characters",
        ),
        Figure(
            "Messages",
            "AGENTS.md absent: its cost per turn",
            absent_us,
            "µs",
            1000.0,
            note="one stat; the first token takes tens of ms",
        ),
    ]


def _pdf_seconds() -> tuple[float, int]:
    from loki_desktop.core.attachments.loading import load_attachments
    from tests.pdf_files import text_pdf

    lines = "Ligne de texte d'un long rapport, page {n}, avec des mots et des chiffres."
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "rapport.pdf"
        path.write_bytes(text_pdf([lines.format(n=n) for n in range(PDF_PAGES)]))
        samples = []
        chars = 0
        for _run in range(RUNS):
            began = time.perf_counter()
            files = asyncio.run(load_attachments([path]))
            samples.append(time.perf_counter() - began)
            chars = len(files[0].text)
    return median_of(samples), chars


def _absent_agents_md_us() -> float:
    from loki_desktop.core.instructions import instruction_texts, read_agents_md

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        began = time.perf_counter()
        for _call in range(STAT_CALLS):
            instruction_texts("", read_agents_md(root))
        return (time.perf_counter() - began) / STAT_CALLS * 1e6


def _page() -> str:
    """50 different formulas: four in a line of text for each displayed one."""
    shapes = [
        "x_{N} = \\frac{N}{N+1}",
        "\\int_0^{N} e^{-t^2}\\,dt",
        "\\sum_{k=1}^{N} k^2",
        "\\sqrt{N + \\alpha}",
        "a^{N} + b^{N} = c^{N}",
    ]
    lines = []
    for index in range(FORMULAS):
        formula = shapes[index % len(shapes)].replace("N", str(index + 2))
        if index % 5 == 4:
            lines.append(f"\n$$\n{formula}\n$$\n")
        else:
            lines.append(f"Ligne {index} : soit ${formula}$, qui suit.\n")
    return "\n".join(lines)


def _child() -> dict[str, Any]:
    from PySide6.QtWidgets import QApplication

    from loki_desktop.ui.chat.markdown_view import MarkdownView
    from loki_desktop.ui.text.markdown_render import MarkdownRenderer
    from loki_desktop.ui.theme import LIGHT

    app = QApplication(sys.argv[:1])
    renderer = MarkdownRenderer(LIGHT, "Copier")
    renderer.render("$x$")  # the parser and ziamath's font, loaded once per process
    view = MarkdownView(renderer)
    view.resize(900, 800)
    view.show()
    text = _page()
    began, cpu = time.perf_counter(), time.thread_time()
    html = renderer.render(text)
    drawn_at = time.perf_counter()
    view.set_markdown(text)
    view.top_chunk().document().size()  # type: ignore[attr-defined]  # the layout
    app.processEvents()
    ended, cpu_ended = time.perf_counter(), time.thread_time()
    return {
        "ms": (ended - began) * 1000,
        "cpu_ms": (cpu_ended - cpu) * 1000,
        "draw_ms": (drawn_at - began) * 1000,
        "images": html.count("<img"),
    }


if __name__ == "__main__" and sys.argv[1:] == ["--child"]:
    print(json.dumps(_child()), flush=True)
    sys.exit(0)
