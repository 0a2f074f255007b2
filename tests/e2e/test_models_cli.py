"""`models pull` and `models rm` as a user or a script runs them: both output modes, exit codes."""

from __future__ import annotations

import socket
from pathlib import Path

from tests.e2e.cli_runner import run_cli
from tests.fakes.ollama_server import FakeOllama


def test_pull_json_streams_progress_then_done(ollama: FakeOllama, loki_home: Path) -> None:
    ollama.pull.steps = 200  # many lines, as a real pull sends
    run = run_cli("models", "pull", "qwen3:8b", "--json", "--host", ollama.url, home=loki_home)
    assert run.code == 0, run.stderr
    progress = run.of_type("progress")
    assert progress[0]["status"] == "pulling manifest"
    assert progress[-1] == {
        "type": "progress",
        "status": "success",
        "completed": 5_012_500,
        "total": 5_012_500,
    }
    completed = [event["completed"] for event in progress]
    assert completed == sorted(completed)
    assert len(progress) < ollama.pull.lines_sent  # throttled, not one per line
    assert run.events[-1] == {"type": "done", "reason": "completed", "model": "qwen3:8b"}
    assert "qwen3:8b" in ollama.models


def test_pull_plain_prints_lines_when_not_a_terminal(ollama: FakeOllama, loki_home: Path) -> None:
    run = run_cli("models", "pull", "qwen3:8b", "--host", ollama.url, home=loki_home)
    assert run.code == 0
    assert "\r" not in run.stderr  # no redrawn line outside a terminal
    lines = run.stderr.splitlines()
    assert lines[0] == "lecture du manifeste"
    assert any(line.startswith("100\u00a0%") for line in lines)
    assert lines[-1] == "« qwen3:8b » est prêt."
    assert run.stdout == ""


def test_unknown_model_exits_1_with_a_sentence(ollama: FakeOllama, loki_home: Path) -> None:
    run = run_cli("models", "pull", "nope:1b", "--host", ollama.url, home=loki_home)
    assert run.code == 1
    assert "n'existe pas dans la bibliothèque d'Ollama" in run.stderr
    run = run_cli("models", "pull", "nope:1b", "--json", "--host", ollama.url, home=loki_home)
    assert run.code == 1
    assert run.of_type("error")[0]["message"].startswith("Le modèle « nope:1b » n'existe pas")
    assert run.events[-1] == {"type": "done", "reason": "error"}


def test_bad_name_exits_2_and_sends_nothing(ollama: FakeOllama, loki_home: Path) -> None:
    run = run_cli("models", "pull", "Pas un nom", "--host", ollama.url, home=loki_home)
    assert run.code == 2
    assert "n'est pas un nom de modèle" in run.stderr
    assert not [r for r in ollama.requests if r[1] == "/api/pull"]


def test_ollama_absent_exits_1(loki_home: Path) -> None:
    with socket.socket() as probe:  # a port we opened and closed: nothing listens there
        probe.bind(("127.0.0.1", 0))
        offline_host = f"http://127.0.0.1:{probe.getsockname()[1]}"
    run = run_cli("models", "pull", "qwen3:8b", "--host", offline_host, home=loki_home)
    assert run.code == 1
    assert "Ollama est injoignable" in run.stderr


def test_rm_removes_then_says_it_is_not_there(ollama: FakeOllama, loki_home: Path) -> None:
    run = run_cli("models", "rm", "llama3.1:8b", "--host", ollama.url, home=loki_home)
    assert (run.code, run.stdout.strip()) == (0, "« llama3.1:8b » est supprimé.")
    assert "llama3.1:8b" not in ollama.models
    run = run_cli("models", "rm", "llama3.1:8b", "--host", ollama.url, home=loki_home)
    assert run.code == 2
    assert "n'est pas installé" in run.stderr


def test_show_describes_an_installed_model(ollama: FakeOllama, loki_home: Path) -> None:
    run = run_cli("models", "show", "qwen2.5-coder:7b", "--host", ollama.url, home=loki_home)
    assert run.code == 0, run.stderr
    rows = dict(line.split(None, 1) for line in run.stdout.splitlines() if line.strip())
    assert rows["Modèle"].strip() == "qwen2.5-coder:7b"
    assert "outils" in rows["Capacités"]
    run = run_cli(
        "models", "show", "qwen2.5-coder:7b", "--json", "--host", ollama.url, home=loki_home
    )
    (profile,) = run.events
    assert (profile["name"], profile["tools"], profile["context_length"]) == (
        "qwen2.5-coder:7b",
        True,
        ollama.context_length,
    )
    run = run_cli("models", "show", "absent:1b", "--host", ollama.url, home=loki_home)
    assert run.code == 2
    assert "n'est pas installé" in run.stderr
