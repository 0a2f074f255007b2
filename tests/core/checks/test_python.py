"""The Python check: compile() for syntax per PEP 263, ruff's fatal rules, nothing run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from loki_desktop.core.checks.python_check import check_python, decode_python
from loki_desktop.core.checks.registry import Checkers
from loki_desktop.core.checks.source import Source


async def check(tmp_path: Path, checkers: Checkers, source: bytes | str, name: str = "m.py"):
    path = tmp_path / name
    if isinstance(source, str):
        path.write_text(source, encoding="utf-8")
    else:
        path.write_bytes(source)
    return await checkers.check(path)


async def test_unused_imports_and_style_are_not_problems(
    tmp_path: Path, checkers: Checkers
) -> None:
    result = await check(
        tmp_path, checkers, "import os, sys\nx=1;y =2\nl = 1\nif x == None: pass\n"
    )

    assert result.problems == ()


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f():\n    return x\n", (2, 12, "F821 Undefined name `x`")),
        ('__all__ = ["gone"]\n', (1, 12, "F822 Undefined name `gone` in `__all__`")),
        ("def f():\n    yield from g()\n", (2, 16, "F821 Undefined name `g`")),
        ("class A:\n    x = y\n", (2, 9, "F821 Undefined name `y`")),
        ("def f():\n    nonlocal n\n", (2, 5, "SyntaxError: no binding for nonlocal 'n' found")),
        (
            "import asyncio\ndef f():\n    await asyncio.sleep(1)\n",
            (3, 5, "SyntaxError: 'await' outside async function"),
        ),
        ("return 1\n", (1, 1, "SyntaxError: 'return' outside function")),
        ("def f(a, a):\n    pass\n", (1, 10, "SyntaxError: duplicate argument 'a'")),
    ],
)
async def test_names_and_errors_that_break_at_run_time(
    tmp_path: Path, checkers: Checkers, source: str, expected: tuple[int, int, str]
) -> None:
    result = await check(tmp_path, checkers, source)

    line, col, message = expected
    assert [(p.line, p.col) for p in result.problems] == [(line, col)]
    assert result.problems[0].message.startswith(message)


async def test_a_syntax_error_is_reported_once(tmp_path: Path, checkers: Checkers) -> None:
    """compile() and ruff's F701 both see a misplaced break: the model reads it once."""
    result = await check(tmp_path, checkers, "while True:\n    pass\nbreak\n")

    assert [p.message for p in result.problems] == ["SyntaxError: 'break' outside loop"]


async def test_columns_count_characters_not_bytes(tmp_path: Path, checkers: Checkers) -> None:
    result = await check(tmp_path, checkers, 'x = "éé€"; y = (1 +\nz = zz\n')

    assert (result.problems[0].line, result.problems[0].col) == (1, 16)


async def test_a_coding_cookie_is_honoured(tmp_path: Path, checkers: Checkers) -> None:
    source = '# -*- coding: latin-1 -*-\ns = "caf\xe9"\nprint(s, t)\n'.encode("latin-1")

    result = await check(tmp_path, checkers, source)

    # ruff reads UTF-8 only: the text reaches it decoded, so it sees the undefined name
    assert [(p.line, p.col, p.message) for p in result.problems] == [
        (3, 10, "F821 Undefined name `t`")
    ]


async def test_an_unknown_coding_cookie_is_a_problem_on_its_line(
    tmp_path: Path, checkers: Checkers
) -> None:
    result = await check(tmp_path, checkers, b"#!/usr/bin/env python\n# coding: klingon\nx = 1\n")

    assert [(p.line, p.col) for p in result.problems] == [(2, 1)]
    assert "klingon" in result.problems[0].message


def test_a_bom_is_decoded_away() -> None:
    assert decode_python(b"\xef\xbb\xbfx = 1\n") == "x = 1\n"


async def test_syntax_warnings_are_not_problems_even_as_errors(
    tmp_path: Path, checkers: Checkers
) -> None:
    """pytest turns warnings into errors here: compile() must still not see them."""
    result = await check(tmp_path, checkers, 'import re\nr = re.compile("\\d+")\nok = 1 is 1\n')

    assert result.problems == ()


async def test_without_ruff_syntax_is_still_checked_and_the_gap_is_said(tmp_path: Path) -> None:
    """Without ruff, compile() judges a project declaring Loki's own Python (or older)."""
    running = f"{sys.version_info.major}.{sys.version_info.minor}"
    (tmp_path / "pyproject.toml").write_text(f'[project]\nrequires-python = ">={running}"\n')
    path = tmp_path / "m.py"
    path.write_text("print(undefined)\ndef f(:\n")

    result = await check_python(Source(path, path.read_bytes()), ruff=None)

    assert [p.line for p in result.problems] == [2]
    assert result.skipped == "ruff introuvable : les noms non définis n'ont pas été vérifiés"


async def test_without_ruff_a_newer_grammar_is_not_judged_by_an_older_python(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.py"
    path.write_text("type Pair[T] = tuple[T, T]\n")

    result = await check_python(Source(path, path.read_bytes()), ruff=None)

    assert result.problems == ()
    assert result.skipped is not None
    assert "ruff introuvable" in result.skipped


async def test_a_stub_file_is_checked_as_python(tmp_path: Path, checkers: Checkers) -> None:
    result = await check(tmp_path, checkers, "def f(x: int) -> Missing: ...\n", "api.pyi")

    assert [p.message for p in result.problems] == ["F821 Undefined name `Missing`"]


async def test_a_deeply_nested_expression_is_a_problem_not_a_crash(
    tmp_path: Path, checkers: Checkers
) -> None:
    result = await check(tmp_path, checkers, "x = " + "(" * 300 + ")" * 300 + "\n")

    assert result.problems[0].message == "SyntaxError: too many nested parentheses"


async def test_builtins_of_recent_pythons_are_not_undefined(
    tmp_path: Path, checkers: Checkers
) -> None:
    source = "a = aiter\nb = ExceptionGroup\nc = PythonFinalizationError\nd = nope\n"

    result = await check(tmp_path, checkers, source)

    assert [p.message for p in result.problems] == ["F821 Undefined name `nope`"]
