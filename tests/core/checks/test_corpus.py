"""The corpus: broken files give the expected problems, valid modern files come back clean."""

from __future__ import annotations

from pathlib import Path

import pytest

from loki_desktop.core.checks.registry import Checkers
from tests.core.checks.corpus import CORPUS, snapshot

# file -> every problem expected, as (line, column, a fragment of the message)
BROKEN = {
    "unclosed_paren.py": [(2, 10, "SyntaxError: '(' was never closed")],
    "undefined_name.py": [(2, 39, "F821 Undefined name `itemz`")],
    "break_outside.py": [(3, 1, "SyntaxError: 'break' outside loop")],
    "indentation.py": [(2, 1, "IndentationError: expected an indented block")],
    "bad_utf8.py": [(1, 12, "byte 0xe9 is not valid utf-8")],
    "unclosed_brace.js": [(5, 1, "SyntaxError: Unexpected end of input")],
    "module_error.js": [(2, 21, "SyntaxError: Unexpected token ';'")],
    "unterminated.mjs": [(1, 17, "SyntaxError: Invalid or unexpected token")],
    "strict_module.mjs": [(1, 1, "Strict mode code may not include a with statement")],
    "trailing_comma.json": [(1, 34, "invalid JSON: Expecting value")],
    "single_quotes.json": [(1, 2, "invalid JSON: Expecting property name")],
    "empty.json": [(1, 1, "invalid JSON: Expecting value")],
    "missing_value.toml": [(2, 8, "invalid TOML: Invalid value")],
    "duplicate_key.toml": [(2, 6, "invalid TOML: Cannot overwrite a value")],
    "mismatched.html": [
        (4, 13, "</div> comes while an element inside <div> is still open"),
        (5, 1, "</span> has no matching open element"),
    ],
    "unclosed.html": [
        (2, 1, "<main> is never closed"),
        (3, 3, "<section> is never closed"),
    ],
    "missing_link.html": [
        (2, 30, "'styles/main.css' points to a file that does not exist"),
        (3, 11, "'images/missing.png' points to a file that does not exist"),
        (4, 10, "(broken/other page.html)"),
    ],
    "broken_script.html": [(4, 25, "SyntaxError: Unexpected token ';'")],
    "import_in_classic_script.html": [(3, 1, "Cannot use import statement outside a module")],
    "selfclosing_div.html": [
        (2, 1, "<div/> does not close <div>"),
        (2, 1, "<div> is never closed"),
    ],
}

VALID = sorted(
    path.relative_to(CORPUS / "valid").as_posix()
    for path in (CORPUS / "valid").rglob("*")
    if Checkers.kind(path) is not None
)


def test_every_broken_file_has_expectations() -> None:
    assert sorted(BROKEN) == sorted(p.name for p in (CORPUS / "broken").iterdir())


@pytest.mark.parametrize("name", sorted(BROKEN))
@pytest.mark.usefixtures("english")
async def test_broken_file_reports_its_problems(
    name: str, corpus: Path, checkers: Checkers
) -> None:
    result = await checkers.check(corpus / "broken" / name, corpus)

    assert not result.ok
    assert result.skipped is None
    found = [(p.line, p.col, p.message) for p in result.problems]
    assert len(found) == len(BROKEN[name]), found
    for (line, col, message), (want_line, want_col, fragment) in zip(
        found, BROKEN[name], strict=True
    ):
        assert (line, col) == (want_line, want_col), found
        assert fragment in message


def test_the_valid_corpus_covers_every_kind() -> None:
    kinds = {Checkers.kind(Path(name)) for name in VALID}
    # (the new kinds have their own corpus: test_reference_corpus.py)
    assert kinds == {"python", "javascript", "html", "css", "json", "toml"}


@pytest.mark.parametrize("name", VALID)
async def test_valid_modern_file_is_clean(name: str, corpus: Path, checkers: Checkers) -> None:
    result = await checkers.check(corpus / "valid" / name, corpus)

    assert result.problems == ()
    assert result.skipped is None
    assert result.ok


async def test_checking_the_whole_corpus_writes_nothing(corpus: Path, checkers: Checkers) -> None:
    before = snapshot(corpus)
    files = sorted(p for p in corpus.rglob("*") if checkers.can_check(p))

    for path in files:
        await checkers.check(path, corpus)

    assert snapshot(corpus) == before
    assert not list(corpus.rglob("MARK*"))
    assert not list(corpus.rglob("__pycache__"))


async def test_files_whose_execution_would_leave_a_mark_leave_none(
    corpus: Path, checkers: Checkers
) -> None:
    valid = corpus / "valid"
    before = snapshot(valid)

    python = await checkers.check(valid / "leaves_mark.py", corpus)
    javascript = await checkers.check(valid / "leaves_mark.js", corpus)

    assert python.ok
    assert python.skipped is None
    assert javascript.ok
    assert javascript.skipped is None
    assert not (valid / "MARK_PY").exists()
    assert not (valid / "MARK_JS").exists()
    assert not (valid / "__pycache__").exists()
    assert snapshot(valid) == before
