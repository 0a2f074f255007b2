"""The JSON and TOML checks: positions, JSON with comments where tools accept it."""

from __future__ import annotations

from pathlib import Path

import pytest

from loki_desktop.core.checks.json_check import blank_comments
from loki_desktop.core.checks.registry import Checkers


async def check(folder: Path, checkers: Checkers, name: str, text: str):
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return await checkers.check(path)


async def test_comments_in_plain_json_are_a_problem(tmp_path: Path, checkers: Checkers) -> None:
    result = await check(tmp_path, checkers, "package.json", '{\n  // no\n  "a": 1\n}\n')

    assert [(p.line, p.col) for p in result.problems] == [(2, 3)]


@pytest.mark.parametrize(
    "name",
    ["tsconfig.json", "tsconfig.build.json", "jsconfig.json", ".vscode/settings.json", "x.jsonc"],
)
async def test_json_with_comments_is_accepted_where_tools_read_it(
    tmp_path: Path, checkers: Checkers, name: str
) -> None:
    text = '{\n  // a comment\n  "a": [1, 2,], /* b */ "s": "http://x//y, ]",\n}\n'

    result = await check(tmp_path, checkers, name, text)

    assert result.problems == ()


async def test_errors_in_json_with_comments_keep_their_positions(
    tmp_path: Path, checkers: Checkers
) -> None:
    text = '{\n  /* several\n     lines */ "a": 1,\n  "b": tru\n}\n'

    result = await check(tmp_path, checkers, "tsconfig.json", text)

    assert [(p.line, p.col) for p in result.problems] == [(4, 8)]


def test_blanking_keeps_strings_and_every_position() -> None:
    text = '{"url": "a//b/*c*/", // note\n "x": [1,],}'

    blanked = blank_comments(text)

    assert len(blanked) == len(text)
    assert blanked.index("\n") == text.index("\n")
    assert '"a//b/*c*/"' in blanked
    assert "note" not in blanked
    assert blanked.rstrip().endswith("[1 ] }")


@pytest.mark.usefixtures("english")
async def test_a_toml_error_at_the_end_of_the_document_points_there(
    tmp_path: Path, checkers: Checkers
) -> None:
    result = await check(
        tmp_path, checkers, "Cargo.toml", '[package]\nname = "x"\ndesc = """open\n'
    )

    assert result.problems[0].message.startswith("invalid TOML: Unterminated string")
    assert result.problems[0].line >= 3
