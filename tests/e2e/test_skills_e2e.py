"""`skills` and `ask` as child processes: routing, explain, list, one-turn injection."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import PYTHON, REPO, cli_env
from tests.fakes.ollama_server import FakeOllama, Reply


def loki(home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, "-m", "loki_desktop", *args],
        cwd=REPO,
        env=cli_env(home),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def ask(home: Path, ollama: FakeOllama, workspace: Path, *args: str) -> list[dict[str, Any]]:
    done = loki(home, "ask", "--host", ollama.url, "--workspace", str(workspace), "--json", *args)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("J'ai une TypeError quand je lance main.py, corrige-la", "debogage-systematique"),
        ("My script crashes with IndexError: list index out of range", "debogage-systematique"),
        ("Crée une page d'accueil pour mon portfolio en HTML et CSS", "creation-web"),
        ("Refactor this module without changing behaviour", "refactor-sur"),
        ("Calcule la moyenne des températures dans meteo.csv", "analyse-donnees"),
        ("Write a cover letter for a data analyst position", "redaction-structuree"),
        ("Salut, ça va ?", "none"),
        ("Thanks, that's all for now", "none"),
    ],
)
def test_skills_prints_the_chosen_skill(loki_home: Path, message: str, expected: str) -> None:
    done = loki(loki_home, "skills", message)
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected + "\n"


def test_explain_prints_the_words_that_scored(loki_home: Path) -> None:
    done = loki(loki_home, "skills", "--explain", "Corrige ce bug : TypeError dans app.py")
    lines = done.stdout.splitlines()
    assert lines[0] == "debogage-systematique"
    assert "« typeerror » fort +3" in done.stdout
    assert "« corrige … bug » paire +3" in done.stdout
    # the stacked decision: rule points, the examples' log-odds and the total per skill
    assert "décision (règles + exemples) :" in done.stdout
    debug = next(line for line in lines if line.startswith("    debogage-systematique"))
    assert re.search(r"règles 7, exemples [+-]\d+\.\d, total \d+\.\d\d$", debug), debug
    assert re.search(r"^    none +total \d+\.\d\d$", done.stdout, re.MULTILINE), done.stdout


def test_explain_shows_a_definitional_question(loki_home: Path) -> None:
    done = loki(loki_home, "skills", "--explain", "What is a TypeError?")
    assert done.stdout.splitlines()[0] == "none"
    assert "what is a" in done.stdout


def test_explain_names_the_examples_when_they_swing_the_decision(loki_home: Path) -> None:
    # no routing term here: the examples' opinion decides, as in a turn
    message = "la pagination saute un élément à chaque fois, il manque toujours le onzième"
    done = loki(loki_home, "skills", "--explain", message)
    assert done.stdout.splitlines()[0] == "debogage-systematique", done.stdout
    assert "les exemples ont fait pencher la décision vers debogage-systematique" in done.stdout
    assert "« pagin »" in done.stdout


def test_the_message_can_come_from_stdin(loki_home: Path) -> None:
    paste = "Traceback (most recent call last):\n  File 'x.py', line 1\nKeyError: 'a'\n"
    done = loki(loki_home, "skills", "-", stdin=paste)
    assert done.stdout == "debogage-systematique\n"


def test_list_shows_builtin_and_user_skills_and_skips_bad_files(loki_home: Path) -> None:
    skills = loki_home / "skills"
    skills.mkdir()
    (skills / "mine.md").write_text(
        "---\nname: ma-methode\ntitle: Ma méthode\ndescription: d\n---\n1. Un.\n", encoding="utf-8"
    )
    (skills / "bad.md").write_text(
        "---\nname: Bad Name\ndescription: d\n---\nx\n", encoding="utf-8"
    )
    done = loki(loki_home, "skills", "--list")
    assert done.returncode == 0
    rows = done.stdout.splitlines()
    assert len(rows) == 6
    assert any(
        r.startswith("creation-web") and "loki_desktop/skills/creation-web.md" in r for r in rows
    )
    assert any(r.startswith("ma-methode") and str(skills / "mine.md") in r for r in rows)
    assert "bad.md" in done.stderr
    assert "nom invalide" in done.stderr


def test_no_message_is_a_usage_error(loki_home: Path) -> None:
    assert loki(loki_home, "skills").returncode == 2


def test_ask_injects_the_skill_for_one_turn_only(
    loki_home: Path, ollama: FakeOllama, workspace: Path
) -> None:
    ollama.script(Reply.text("Je ", "cherche."), Reply.text("Avec plaisir."))
    first = ask(loki_home, ollama, workspace, "Mon script plante avec une KeyError, corrige-le")
    types = [event["type"] for event in first]
    assert first[types.index("skill")] == {
        "type": "skill",
        "name": "debogage-systematique",
        "title": "Débogage systématique",
    }
    assert types.index("skill") < types.index("token")
    messages = ollama.chat_requests[0]["messages"]
    assert [m["role"] for m in messages] == ["system", "system", "user"]
    assert messages[1]["content"].startswith("# Méthode : débogage systématique")

    session = first[-1]["session"]
    second = ask(loki_home, ollama, workspace, "--session", session, "Merci beaucoup")
    assert "skill" not in [event["type"] for event in second]
    messages = ollama.chat_requests[1]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert not any("Méthode" in m["content"] for m in messages)


def test_ask_no_skills_injects_nothing(
    loki_home: Path, ollama: FakeOllama, workspace: Path
) -> None:
    ollama.script(Reply.text("ok"))
    events = ask(loki_home, ollama, workspace, "--no-skills", "Corrige le bug : TypeError")
    assert "skill" not in [event["type"] for event in events]
    assert [m["role"] for m in ollama.chat_requests[0]["messages"]] == ["system", "user"]
