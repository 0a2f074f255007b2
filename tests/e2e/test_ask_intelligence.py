"""`ask --plan/--no-plan --review/--no-review --code-model M`: one turn's Intelligence, as a
person or a script runs it, against the scripted server."""

from __future__ import annotations

import json
from pathlib import Path

from loki_desktop.core.plan import PLAN_SYSTEM
from loki_desktop.core.review import REVIEW_SYSTEM
from tests.e2e.cli_runner import ask_json, run_cli
from tests.fakes.ollama_server import FakeOllama, Reply

MULTI = "Crée notes.md, ajoute une liste de courses, puis vérifie le fichier"
DEBUG_REQUEST = "Mon script plante avec une TypeError, corrige-le"


def firsts(server: FakeOllama) -> list[str]:
    return [body["messages"][0]["content"] for body in server.chat_requests]


def test_plan_and_review_for_one_turn_in_the_json_stream(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(
        Reply.text("1. Créer notes.md\n2. Ajouter la liste\n3. Relire"),
        Reply.text("Voici la liste."),
        Reply.text("OK"),
    )
    run = ask_json(ollama, workspace, loki_home, "--plan", "--review", prompt=MULTI)
    assert run.code == 0, run.stderr
    (plan,) = run.of_type("plan")
    assert plan["steps"] == ["Créer notes.md", "Ajouter la liste", "Relire"]
    (review,) = run.of_type("review")
    assert review == {"type": "review", "changed": False, "summary": "relu : rien à changer"}
    assert firsts(ollama)[0] == PLAN_SYSTEM
    assert firsts(ollama)[2] == REVIEW_SYSTEM


def test_no_plan_and_no_review_override_the_settings(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    (loki_home / "settings.json").write_text(
        json.dumps({"plan_enabled": True, "review_enabled": True})
    )
    ollama.script(Reply.text("Voici la liste."))
    run = ask_json(ollama, workspace, loki_home, "--no-plan", "--no-review", prompt=MULTI)
    assert run.code == 0, run.stderr
    assert len(ollama.chat_requests) == 1
    assert not run.of_type("plan")
    assert not run.of_type("review")


def test_a_code_turn_runs_on_the_code_model_given(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(Reply.text("Voyons la trace."))
    run = ask_json(
        ollama,
        workspace,
        loki_home,
        "--model",
        "llama3.1:8b",
        "--code-model",
        "qwen2.5-coder:7b",
        prompt=DEBUG_REQUEST,
    )
    assert run.code == 0, run.stderr
    (skill,) = run.of_type("skill")
    assert skill["model"] == "qwen2.5-coder:7b"
    assert [body["model"] for body in ollama.chat_requests] == ["qwen2.5-coder:7b"]


def test_the_plain_output_shows_the_plan_the_review_and_the_code_model(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(
        Reply.text("1. Lire la trace\n2. Corriger"),
        Reply.text("Corrigé."),
        Reply.text("OK"),
    )
    args = ["ask", DEBUG_REQUEST + ", puis relance les tests et vérifie le résultat"]
    args += ["--host", ollama.url, "--workspace", str(workspace), "--plan", "--review"]
    run = run_cli(*args, "--code-model", "qwen2.5-coder:7b", home=loki_home)
    assert run.code == 0, run.stderr
    assert "modèle : qwen2.5-coder:7b" in run.stderr
    assert "Plan :\n  1. Lire la trace\n  2. Corriger" in run.stderr
    assert "[relu : rien à changer]" in run.stderr
    assert run.stdout.strip() == "Corrigé."
