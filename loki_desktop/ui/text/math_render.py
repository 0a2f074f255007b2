"""Formulas in answers: found by mdit-py-plugins, drawn to SVG by ziamath (pure Python).

`$…$` and `\\(…\\)` are inline, `$$…$$` and `\\[…\\]` displayed. dollarmath is set up so
that currency stays text: an opening `$` followed by a space, or a closing one next to a
digit ("it costs $5 and $10"), is no formula. Each formula is drawn once per size and
colour (an LRU keeps the SVG); the HTML names it `math:KEY`, and the message view turns
that name into an image (ui.chat.markdown_view). A formula ziamath cannot parse renders
as its source in code style.
"""

from __future__ import annotations

import functools
import hashlib
import html
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

INLINE_PX = 15.0
DISPLAY_PX = 18.0
MATH_SCHEME = "math"
_KEPT = 512  # formulas kept drawn (a long mathematical answer has a few hundred)


@dataclass(frozen=True, slots=True)
class Formula:
    """One formula as drawn: its source, whether displayed, its SVG and size in pixels."""

    latex: str
    display: bool
    svg: str
    width: float
    height: float


_drawn: OrderedDict[str, Formula | None] = OrderedDict()


def enable_math(md: MarkdownIt) -> None:
    """Teach the parser the four delimiters."""
    from mdit_py_plugins.dollarmath import dollarmath_plugin
    from mdit_py_plugins.texmath import texmath_plugin

    dollarmath_plugin(
        md, allow_labels=False, allow_space=False, allow_digits=False, double_inline=True
    )
    texmath_plugin(md, delimiters="brackets")


def formula_key(latex: str, display: bool, color: str) -> str:
    digest = hashlib.sha1(f"{display}\0{color}\0{latex}".encode(), usedforsecurity=False)
    return digest.hexdigest()[:20]


def draw(latex: str, display: bool, color: str) -> tuple[str, Formula | None]:
    """The formula's key and drawing (None: ziamath cannot parse it)."""
    key = formula_key(latex, display, color)
    if key in _drawn:
        _drawn.move_to_end(key)
        return key, _drawn[key]
    formula = _draw(latex.strip(), display, color)
    _drawn[key] = formula
    while len(_drawn) > _KEPT:
        _drawn.popitem(last=False)
    return key, formula


def drawn(key: str) -> Formula | None:
    """A formula drawn by `draw` (None: unknown, or could not be drawn)."""
    return _drawn.get(key)


@functools.cache
def _ziamath() -> Any:
    """ziamath's Math, imported at the first formula (~0.2 s); its font loading calls the
    deprecated importlib.resources.path (ziamath 0.13), said once and harmless."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from ziamath.config import config
        from ziamath.zmath import Math

        # plain paths: QtSvg draws SVG Tiny 1.2, which has no <symbol> (SVG 2 reuse)
        config.svg2 = False
        Math.fromlatex("x").svg()  # loads the math font inside the filter
    return Math


def _draw(latex: str, display: bool, color: str) -> Formula | None:
    maths = _ziamath()
    try:
        math = maths.fromlatex(
            latex, size=DISPLAY_PX if display else INLINE_PX, color=color, inline=not display
        )
        svg = math.svg()
        width, height = math.getsize()
    except Exception:  # any parse or layout failure of a model's LaTeX: shown as source
        return None
    return Formula(latex, display, svg, width, height)


def render_rules(color: str, code_style: str) -> dict[str, Any]:
    """The markdown-it render rules for the math tokens, drawing in `color`; `code_style`
    is the inline style of code, for a formula that cannot be drawn."""

    def inline(tokens: Any, idx: int, options: Any, env: Any) -> str:
        return _html(tokens[idx].content, False, color, code_style)

    def shown(tokens: Any, idx: int, options: Any, env: Any) -> str:
        return _html(tokens[idx].content, True, color, code_style)  # `$$…$$` inside a line

    def block(tokens: Any, idx: int, options: Any, env: Any) -> str:
        return f'<p align="center">{_html(tokens[idx].content, True, color, code_style)}</p>\n'

    return {
        "math_inline": inline,
        "math_single": inline,
        "math_inline_double": shown,
        "math_block": block,
        "math_block_eqno": block,
    }


def _html(latex: str, display: bool, color: str, code_style: str) -> str:
    key, formula = draw(latex, display, color)
    if formula is None:
        mark = "$$" if display else "$"
        return f'<span style="{code_style}">{html.escape(mark + latex.strip() + mark)}</span>'
    return (
        f'<img src="{MATH_SCHEME}:{key}" width="{round(formula.width)}"'
        f' height="{round(formula.height)}" style="vertical-align: middle;" />'
    )


def source_of(key: str) -> str | None:
    """The LaTeX a copy gives for the formula `key`, with its delimiters."""
    formula = drawn(key)
    if formula is None:
        return None
    mark = "$$" if formula.display else "$"
    return f"{mark}{formula.latex}{mark}"
