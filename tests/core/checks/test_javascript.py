"""The JavaScript check: node parses (never runs) scripts, CommonJS files and ES modules."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from loki_desktop.core.checks.js_check import parse_node_error
from loki_desktop.core.checks.registry import Checkers

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")


async def check(tmp_path: Path, checkers: Checkers, source: str, name: str = "app.js"):
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    return await checkers.check(path)


@pytest.mark.parametrize(
    ("name", "source"),
    [
        ("app.js", "import x from './x.js';\nexport default x;\n"),  # a browser module
        ("app.js", "const r = await fetch('/');\n"),  # top-level await: a module
        ("app.js", "with (Math) { console.log(PI); }\n"),  # sloppy script: not strict
        ("app.js", "const o = {a: {b: 1}};\nconsole.log(o?.a?.b ?? 0, 10n ** 2n);\n"),
        ("app.cjs", "if (!module.parent) { return; }\n"),
        ("lib.mjs", "export const meta = import.meta.url;\n"),
    ],
)
async def test_valid_code_of_each_flavour_is_clean(
    tmp_path: Path, checkers: Checkers, name: str, source: str
) -> None:
    result = await check(tmp_path, checkers, source, name)

    assert result.problems == ()
    assert result.skipped is None


async def test_an_error_after_module_syntax_is_found_by_the_module_parse(
    tmp_path: Path, checkers: Checkers
) -> None:
    result = await check(tmp_path, checkers, "export const a = 1;\nconst b = [1, 2;\n")

    assert [(p.line, p.col, p.message) for p in result.problems] == [
        (2, 16, "SyntaxError: Unexpected token ';'")
    ]


async def test_module_only_syntax_in_a_cjs_file_is_a_problem(
    tmp_path: Path, checkers: Checkers
) -> None:
    result = await check(tmp_path, checkers, "import fs from 'fs';\n", "tool.cjs")

    assert [p.message for p in result.problems] == [
        "SyntaxError: Cannot use import statement outside a module"
    ]


async def test_columns_follow_tabs_and_non_ascii_text(tmp_path: Path, checkers: Checkers) -> None:
    result = await check(tmp_path, checkers, '\tconst é = "€€";  let = ;\n')

    assert [(p.line, p.col) for p in result.problems] == [(1, 25)]  # the ";"


async def test_jsx_in_a_js_file_is_judged_by_the_jsx_grammar(
    tmp_path: Path, checkers: Checkers
) -> None:
    source = "import React from 'react';\nexport const App = () => <div>hi</div>;\n"
    broken = "import React from 'react';\nexport const App = () => <div>hi</span>;\n"

    result = await check(tmp_path, checkers, source)
    wrong = await check(tmp_path, checkers, broken, "wrong.js")

    assert result.problems == ()
    assert result.skipped is None
    assert [(p.line, p.col) for p in wrong.problems] == [(2, 33)]
    assert wrong.problems[0].message == "</span> ferme <div> : il faut </div>"


@pytest.mark.usefixtures("english")
async def test_without_node_the_check_says_it_was_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    checkers = Checkers()  # looks node up on this PATH

    result = await check(tmp_path, checkers, "const a = ;\n")

    assert result.ok
    assert result.skipped == "node was not found: JavaScript was not checked (install Node.js)"


async def test_node_options_cannot_make_the_check_run_code(
    tmp_path: Path, checkers: Checkers, monkeypatch: pytest.MonkeyPatch
) -> None:
    mark = tmp_path / "MARK"
    preload = tmp_path / "preload.js"
    preload.write_text(f"require('fs').writeFileSync({str(mark)!r}, 'ran');\n")
    monkeypatch.setenv("NODE_OPTIONS", f"--require {preload}")

    result = await check(tmp_path, checkers, "const a = 1;\n")

    assert result.ok
    assert result.skipped is None
    assert not mark.exists()


def test_node_reports_are_parsed_with_their_caret() -> None:
    stderr = (
        "[stdin]:2\n"
        "foo(;\n"
        "    ^\n"
        "\n"
        "SyntaxError: Unexpected token ';'\n"
        "    at checkSyntax (node:internal/main/check_syntax:74:5)\n"
        "\n"
        "Node.js v20.20.2\n"
    )

    problem = parse_node_error(stderr)

    assert problem is not None
    assert (problem.line, problem.col, problem.message) == (
        2,
        5,
        "SyntaxError: Unexpected token ';'",
    )
    assert parse_node_error("node: bad option: --input-type\n") is None
