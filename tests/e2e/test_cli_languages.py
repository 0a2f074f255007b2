"""The CLI in English and in French: help, listings, checks and errors, as a person reads them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.cli_runner import run_cli
from tests.language_words import wrong_words


def _session(home: Path, workspace: Path, **env: str) -> list[tuple[str, str]]:
    """What a person reads in a short session: (command, its output)."""
    (workspace / "page.html").write_text('<p><img src="logo.png"></p>\n', encoding="utf-8")
    (workspace / "broken.json").write_text("{\n", encoding="utf-8")
    (workspace / "notes.md").write_text("# x\n", encoding="utf-8")
    commands = [
        ("--help",),
        ("ask", "--help"),
        ("mcp", "--help"),
        ("mcp", "list"),
        ("skills", "--list"),
        ("skills", "--explain", "corrige ce bug TypeError"),
        (
            "check",
            *(str(workspace / name) for name in ("page.html", "broken.json", "notes.md")),
            "gone.py",
        ),
        ("ask", "x", "--workspace", str(workspace / "nowhere")),
    ]
    said = []
    for args in commands:
        done = run_cli(*args, home=home, **env)
        said.append((" ".join(args), done.stdout + done.stderr))
    return said


def test_the_cli_in_english(loki_home: Path, tmp_path: Path) -> None:
    said = _session(loki_home, tmp_path, LANGUAGE="en")
    text = "\n".join(output for _command, output in said)
    assert "'logo.png' points to a file that does not exist" in text
    assert "gone.py: file not found" in text
    assert "The working folder does not exist" in text
    assert "asks the agent a question, without a window" in text
    # argparse's own words (usage:, options) come through Loki's catalogue too
    wrong = {command: wrong_words(output, "en") for command, output in said}
    assert not any(wrong.values()), wrong


def test_the_setting_chooses_french_over_an_english_system(loki_home: Path, tmp_path: Path) -> None:
    (loki_home / "settings.json").write_text(json.dumps({"language": "fr"}), encoding="utf-8")
    said = _session(loki_home, tmp_path, LANG="en_US.UTF-8")
    text = "\n".join(output for _command, output in said)
    assert "« logo.png » pointe vers un fichier qui n'existe pas" in text
    assert "gone.py : fichier introuvable" in text
    assert "pose une question à l'agent, sans fenêtre" in text


@pytest.mark.parametrize(
    ("locale", "word"), [("fr_FR.UTF-8", "introuvable"), ("en_GB.UTF-8", "not found")]
)
def test_the_system_locale_chooses(loki_home: Path, locale: str, word: str) -> None:
    done = run_cli("check", "gone.py", home=loki_home, LANG=locale)
    assert word in done.stderr
