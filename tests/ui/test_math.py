"""Formulas in answers: drawn by ziamath through QtSvg, source shown when they cannot be, copied
as LaTeX; currency stays text."""

from __future__ import annotations

import re

from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from loki_desktop.ui.chat.markdown_view import OBJECT, MarkdownView
from loki_desktop.ui.text.markdown_render import MarkdownRenderer
from loki_desktop.ui.text.math_image import formula_image
from loki_desktop.ui.text.math_render import drawn
from loki_desktop.ui.theme import LIGHT

IMG = re.compile(r'<img src="math:([0-9a-f]+)"')


def _render(text: str) -> str:
    return MarkdownRenderer(LIGHT).render(text)


def test_the_four_delimiters_draw_formulas() -> None:
    html = _render("Soit $x^2$ et \\(a+b\\).\n\n$$\n\\frac{1}{2}\n$$\n\n\\[\n\\sqrt{\\pi}\n\\]\n")
    keys = IMG.findall(html)
    assert len(keys) == 4
    formulas = [drawn(key) for key in keys]
    assert [(f.latex, f.display) for f in formulas if f is not None] == [
        ("x^2", False),
        ("a+b", False),
        ("\\frac{1}{2}", True),
        ("\\sqrt{\\pi}", True),
    ]
    assert all(f is not None and f.svg.startswith("<svg") for f in formulas)
    assert html.count('<p align="center">') == 2  # the displayed ones stand alone


def test_currency_and_code_stay_text() -> None:
    for text in ("It costs $5 and $10.", "Ça coûte 5$ et 10$.", "Entre $ 5 et 10 $ par mois."):
        html = _render(text)
        assert "<img" not in html
        assert text in html
    assert ">$x$</span>" in _render("In code: `$x$`.")


def test_a_formula_that_cannot_be_drawn_shows_its_source_as_code() -> None:
    html = _render("Voici $$\\frac{a}{$$ et :\n\n\\[\n\\begin{foo}x\\end{bar}\n\\]\n")
    assert "<img" not in html
    assert "font-family:'DejaVu Sans Mono'" in html
    assert "$$\\frac{a}{$$" in html
    assert "$$\\begin{foo}x\\end{bar}$$" in html


def test_the_view_draws_the_formula_and_a_copy_gives_the_latex(qtbot: QtBot) -> None:
    view = MarkdownView(MarkdownRenderer(LIGHT))
    qtbot.addWidget(view)
    view.set_markdown("Aire : $\\pi r^2$ cm.")
    view.show()
    chunk = view.top_chunk()
    text = view.plain_text()
    assert text == f"Aire : {OBJECT} cm."
    key = IMG.findall(_render("Aire : $\\pi r^2$ cm."))[0]
    image = formula_image(key, 2.0)
    assert image is not None
    assert image.width() > 20
    assert image.devicePixelRatio() == 2.0
    inked = [
        (x, y)
        for x in range(image.width())
        for y in range(image.height())
        if image.pixelColor(x, y).alpha() > 0
    ]
    assert len(inked) > 100  # drawn, not an empty box
    chunk.selectAll()  # type: ignore[attr-defined]
    chunk.copy()  # type: ignore[attr-defined]
    assert QGuiApplication.clipboard().text() == "Aire : $\\pi r^2$ cm."


def test_a_formula_streamed_in_pieces_ends_drawn(qtbot: QtBot) -> None:
    view = MarkdownView(MarkdownRenderer(LIGHT))
    qtbot.addWidget(view)
    for piece in ["Donc :\n\n$$\n\\frac{", "a}{b", "}\n$$", "\n\nEt $x", "^2$ aussi."]:
        view.append(piece)
        view.flush()  # as the repaint timer would: a half formula is shown as its source
    view.finish()
    assert view.plain_text() == f"Donc :\n{OBJECT}\nEt {OBJECT} aussi."
