"""The house rules a test can hold: no function over 80 lines, no import circle in loki_desktop."""

from __future__ import annotations

import ast

import grimp

from tests.conftest import REPO

PACKAGE = REPO / "loki_desktop"
MAX_FUNCTION_LINES = 80  # the hard limit; the design guide aims at ~60 (widget builders too)


def long_functions() -> list[str]:
    """Every function (methods, nested ones and widget builders included) past the limit,
    counted from its `def` line to its last line, as `path:line name (n lines)`."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    where = path.relative_to(REPO).as_posix()
                    found.append(f"{where}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_no_function_is_over_80_lines() -> None:
    found = long_functions()
    assert not found, "split these into parts with names:\n" + "\n".join(found)


def import_circles() -> set[frozenset[str]]:
    """Each group of modules that import one another, directly or through others (type
    hints and imports inside functions count: a part never imports the whole)."""
    graph = grimp.build_graph("loki_desktop", cache_dir=None)
    circles = set()
    for module in graph.modules:
        around = graph.find_upstream_modules(module) & graph.find_downstream_modules(module)
        if around:
            circles.add(frozenset({module, *around}))
    return circles


def test_no_import_circle_in_loki_desktop() -> None:
    circles = sorted(", ".join(sorted(circle)) for circle in import_circles())
    assert not circles, "modules that import one another (pass the part what it needs):\n" + (
        "\n".join(circles)
    )
