"""Files that cannot be checked normally: missing, folders, binary, huge, unknown kinds."""

from __future__ import annotations

from pathlib import Path

import pytest

from loki_desktop.core.checks.registry import MAX_PROBLEMS, Checkers
from loki_desktop.core.checks.source import MAX_BYTES

# the English wording of Loki's checker messages is held here (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("english")


async def test_a_missing_file_is_unreadable(tmp_path: Path, checkers: Checkers) -> None:
    result = await checkers.check(tmp_path / "nope.py")

    assert result.unreadable
    assert result.problems == ()
    assert result.skipped == "cannot read the file: no such file"


async def test_a_folder_is_unreadable(tmp_path: Path, checkers: Checkers) -> None:
    (tmp_path / "package.json").mkdir()

    result = await checkers.check(tmp_path / "package.json")

    assert result.unreadable
    assert "folder" in (result.skipped or "")


async def test_a_binary_file_is_a_problem_at_its_first_nul_byte(
    tmp_path: Path, checkers: Checkers
) -> None:
    path = tmp_path / "data.json"
    path.write_bytes(b'{"a":\n  1}\x00\x01\x02')

    result = await checkers.check(path)

    assert [(p.line, p.col) for p in result.problems] == [(2, 5)]
    assert "binary content" in result.problems[0].message


async def test_undecodable_bytes_are_a_problem_with_their_position(
    tmp_path: Path, checkers: Checkers
) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b'name = "ok"\ntitle = "caf\xe9"\n')

    result = await checkers.check(path)

    assert [(p.line, p.col) for p in result.problems] == [(2, 13)]
    assert "not valid UTF-8" in result.problems[0].message


async def test_a_huge_file_is_not_checked_and_says_so(tmp_path: Path, checkers: Checkers) -> None:
    path = tmp_path / "generated.py"
    path.write_text("x = (\n" + "# padding\n" * (MAX_BYTES // 10 + 1))

    result = await checkers.check(path)

    assert result.problems == ()
    assert result.skipped is not None
    assert "larger than 1 MB" in result.skipped
    assert not result.unreadable


async def test_other_kinds_are_not_checked(tmp_path: Path, checkers: Checkers) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# (unclosed")

    assert not checkers.can_check(path)
    result = await checkers.check(path)
    assert result.ok
    assert result.skipped == "no check exists for .md files"


def test_kinds_are_chosen_by_extension_whatever_the_case(checkers: Checkers) -> None:
    assert checkers.kind(Path("A.PY")) == "python"
    assert checkers.kind(Path("stub.pyi")) == "python"
    assert checkers.kind(Path("x.cjs")) == "javascript"
    assert checkers.kind(Path("page.HTM")) == "html"
    assert checkers.kind(Path("settings.jsonc")) == "json"
    assert checkers.kind(Path("Cargo.toml")) == "toml"
    assert checkers.kind(Path("app.TS")) == "typescript"
    assert checkers.kind(Path("App.tsx")) == "typescript"
    assert checkers.kind(Path("Button.jsx")) == "typescript"
    assert checkers.kind(Path("site.CSS")) == "css"
    assert checkers.kind(Path("ci.yml")) == "yaml"
    assert checkers.kind(Path("run.sh")) == "shell"
    assert checkers.kind(Path("Makefile")) is None


async def test_problems_are_capped_and_the_cap_is_said(tmp_path: Path, checkers: Checkers) -> None:
    path = tmp_path / "many.py"
    path.write_text("".join(f"print(undefined_{i})\n" for i in range(MAX_PROBLEMS + 20)))

    result = await checkers.check(path)

    assert len(result.problems) == MAX_PROBLEMS
    assert result.problems[0].message == "F821 Undefined name `undefined_0`"
    assert (
        result.skipped
        == f"only the first {MAX_PROBLEMS} of {MAX_PROBLEMS + 20} problems are listed"
    )
