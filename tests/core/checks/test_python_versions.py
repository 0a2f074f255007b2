"""Python is judged with the grammar of the project's own version, never Loki's own."""

from __future__ import annotations

from pathlib import Path

import pytest

from loki_desktop.core.checks.python_version import NEWEST, lowest_allowed, python_target
from loki_desktop.core.checks.registry import Checkers

MODERN = (
    "type Pair[T] = tuple[T, T]\n"  # PEP 695 alias
    "def first[T](items: list[T]) -> T:\n"  # PEP 695 generic function
    "    return items[0]\n"
    "class Box[T: (int, str)]:\n"  # generic class with constraints
    "    def get(self) -> T: ...\n"
    'names = ["a", "b"]\n'
    'print(f"{", ".join(names)}")\n'  # PEP 701: the outer quote reused inside
    'print(f"{"\\n".join(names)}")\n'  # PEP 701: a backslash in the expression
)


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


async def test_modern_syntax_with_no_declared_version_is_clean(
    tmp_path: Path, checkers: Checkers
) -> None:
    result = await checkers.check(write(tmp_path, "m.py", MODERN))

    assert result.problems == ()
    assert result.skipped is None


@pytest.mark.parametrize("spec", [">=3.12", ">=3.13,<4", "~=3.12.1", "==3.13.*"])
async def test_modern_syntax_is_clean_when_the_project_allows_it(
    tmp_path: Path, checkers: Checkers, spec: str
) -> None:
    write(tmp_path, "pyproject.toml", f'[project]\nname = "x"\nrequires-python = "{spec}"\n')

    result = await checkers.check(write(tmp_path, "src/pkg/m.py", MODERN))

    assert result.problems == ()
    assert result.skipped is None


async def test_syntax_newer_than_the_declared_version_is_said_with_the_versions(
    tmp_path: Path, checkers: Checkers
) -> None:
    write(tmp_path, "pyproject.toml", '[project]\nrequires-python = ">=3.11"\n')

    result = await checkers.check(write(tmp_path, "m.py", MODERN))

    assert [(p.line, p.col) for p in result.problems] == [
        (1, 1),
        (2, 10),
        (4, 10),
        (7, 10),
        (8, 10),
        (8, 11),
    ]
    first = result.problems[0].message
    assert first.startswith("SyntaxError: Cannot use `type` alias statement : syntaxe de Python")
    assert "Python 3.12 et plus, mais le projet déclare Python 3.11" in first
    assert "(requires-python = « >=3.11 » dans " in first
    assert "f-strings" in result.problems[3].message


async def test_a_python_version_file_is_read_when_no_pyproject_declares_one(
    tmp_path: Path, checkers: Checkers
) -> None:
    write(tmp_path, ".python-version", "3.9.4\n")
    write(tmp_path, "app/pyproject.toml", '[project]\nname = "no-version"\n')
    source = "x = 1\nmatch x:\n    case _:\n        pass\n"

    result = await checkers.check(write(tmp_path, "app/m.py", source))

    assert [(p.line, p.col) for p in result.problems] == [(2, 1)]
    assert "syntaxe de Python 3.10 et plus" in result.problems[0].message
    target = python_target(tmp_path / "app" / "m.py")
    assert target.version == (3, 9)
    assert target.origin is not None
    assert target.origin.endswith(".python-version")


async def test_the_nearest_project_decides(tmp_path: Path, checkers: Checkers) -> None:
    write(tmp_path, "pyproject.toml", '[project]\nrequires-python = ">=3.8"\n')
    write(tmp_path, "tools/pyproject.toml", '[project]\nrequires-python = ">=3.12"\n')

    inner = await checkers.check(write(tmp_path, "tools/m.py", MODERN))
    source = "x = 1\nmatch x:\n    case 1:\n        pass\n"
    outer = await checkers.check(write(tmp_path, "m.py", source))

    assert inner.problems == ()
    assert [p.line for p in outer.problems] == [2]
    assert "Python 3.10" in outer.problems[0].message
    assert "Python 3.8" in outer.problems[0].message


async def test_a_real_error_in_a_modern_file_is_found_where_it_is(
    tmp_path: Path, checkers: Checkers
) -> None:
    """Loki's Python (3.11) would stop at line 1 (`type`); the project's grammar goes on."""
    result = await checkers.check(write(tmp_path, "m.py", MODERN + "def broken(:\n    pass\n"))

    assert [p.line for p in result.problems] == [9]
    assert result.problems[0].message.startswith("SyntaxError: ")


async def test_errors_only_compile_sees_are_kept_when_its_grammar_covers_the_file(
    tmp_path: Path, checkers: Checkers
) -> None:
    source = "def f():\n    nonlocal n\n"

    result = await checkers.check(write(tmp_path, "m.py", source))

    assert [(p.line, p.col) for p in result.problems] == [(2, 5)]
    assert "no binding for nonlocal 'n' found" in result.problems[0].message


@pytest.mark.parametrize(
    ("spec", "version"),
    [
        (">=3.11", (3, 11)),
        (">3.9", (3, 9)),  # 3.9.1 is above 3.9
        ("~=3.10.2", (3, 10)),
        (">=3.8,<3.13", (3, 8)),
        ("==3.12.*", (3, 12)),
        ("<3.10", (3, 0)),
        ("not a specifier", None),
        ("==2.7", None),
    ],
)
def test_the_lowest_allowed_version(spec: str, version: tuple[int, int] | None) -> None:
    assert lowest_allowed(spec) == version


def test_nothing_declared_means_the_newest_grammar(tmp_path: Path) -> None:
    target = python_target(write(tmp_path, "m.py", ""))

    assert target.version == NEWEST
    assert target.origin is None
