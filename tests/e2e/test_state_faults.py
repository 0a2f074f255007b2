"""Issue 16 (state that survives anything), end to end: real `ask` processes, real files,
the scripted Ollama server."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.cli_runner import ask_json
from tests.fakes.ollama_server import FakeOllama, Reply


def test_ask_runs_with_a_settings_file_that_is_not_utf8(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    (loki_home / "settings.json").write_bytes(b'{"model": "caf\xe9"}')
    ollama.script(Reply.text("Bonjour."))
    run = ask_json(ollama, workspace, loki_home)
    assert run.code == 0, run.stderr
    assert "Traceback" not in run.stderr
    notices = [event["message"] for event in run.of_type("notice")]
    assert any("UTF-8" in notice and "mis de côté" in notice for notice in notices)
    assert run.of_type("token")[0]["text"] == "Bonjour."


def test_ask_runs_with_out_of_range_settings_and_names_them(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    (loki_home / "settings.json").write_text(
        json.dumps({"num_ctx": -1, "max_rounds": -5, "model": "llama3.1:8b"})
    )
    ollama.script(Reply.text("Bonjour."))
    run = ask_json(ollama, workspace, loki_home)
    assert run.code == 0, run.stderr
    notices = [event["message"] for event in run.of_type("notice")]
    assert any("« num_ctx »" in notice for notice in notices)
    assert any("« max_rounds »" in notice for notice in notices)
    sent = ollama.chat_requests[0]
    assert sent["model"] == "llama3.1:8b"  # the good field is kept
    assert sent["options"]["num_ctx"] == 8192
