"""`loki-desktop check PATH...`: problem lines, exit codes 0, 1 and 2."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import PYTHON, REPO, cli_env
from tests.core.checks.corpus import snapshot
from tests.core.checks.references import REFERENCE_CORPUS, corpus_files

# the English wording of Loki's checker messages is held here (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("english")


def run_check(home: Path, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, "-m", "loki_desktop", "check", *args],
        cwd=cwd,
        env=cli_env(home, **env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_problems_are_printed_one_per_line_and_exit_1(loki_home: Path, corpus: Path) -> None:
    done = run_check(
        loki_home,
        corpus,
        "broken/undefined_name.py",
        "broken/mismatched.html",
        "valid/data.json",
    )

    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "broken/undefined_name.py:2:39: F821 Undefined name `itemz`",
        "broken/mismatched.html:4:13: </div> comes while an element inside <div> is still open "
        "(a missing end tag?)",
        "broken/mismatched.html:5:1: </span> has no matching open element (ignored by browsers)",
    ]


def test_clean_files_exit_0_silently(loki_home: Path, corpus: Path) -> None:
    done = run_check(loki_home, corpus, "valid/modern.py", "valid/site/index.html")

    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_a_folder_is_checked_file_by_file_and_nothing_is_written(
    loki_home: Path, corpus: Path
) -> None:
    before = snapshot(corpus)

    done = run_check(loki_home, corpus, "valid")
    assert done.returncode == 0, done.stdout + done.stderr
    done = run_check(loki_home, corpus, "broken")
    assert done.returncode == 1
    assert len(done.stdout.splitlines()) == 25

    assert snapshot(corpus) == before


def test_a_missing_file_exits_2_and_other_kinds_are_noted(loki_home: Path, corpus: Path) -> None:
    (corpus / "notes.md").write_text("# notes\n")

    done = run_check(loki_home, corpus, "notes.md", "gone.py", "broken/empty.json")

    assert done.returncode == 2
    assert done.stdout == "broken/empty.json:1:1: invalid JSON: Expecting value\n"
    assert "notes.md: no check for this kind of file" in done.stderr
    assert "gone.py: file not found" in done.stderr


def test_no_path_is_a_usage_error(loki_home: Path) -> None:
    done = run_check(loki_home, REPO)

    assert done.returncode == 2
    assert "usage:" in done.stderr


def test_without_node_javascript_is_reported_as_skipped(loki_home: Path, corpus: Path) -> None:
    done = run_check(loki_home, corpus, "broken/unclosed_brace.js", PATH=str(corpus / "no-bin"))

    assert done.returncode == 0
    assert done.stdout == ""
    assert "incomplete check (node was not found" in done.stderr


def test_the_new_kinds_and_modern_python_are_checked(loki_home: Path, corpus: Path) -> None:
    reference = corpus / "reference"

    clean = run_check(loki_home, reference, "valid")
    broken = run_check(loki_home, reference, "broken")

    assert (clean.returncode, clean.stdout, clean.stderr) == (0, "", "")
    assert broken.returncode == 1, broken.stderr
    assert broken.stderr == ""
    named = {line.split(":")[0] for line in broken.stdout.splitlines()}
    every = {p.relative_to(REFERENCE_CORPUS).as_posix() for p in corpus_files("broken")}
    assert named == every
    assert "broken/py311/type_alias.py:6:1: SyntaxError: Cannot use `type` alias statement" in (
        broken.stdout
    )
