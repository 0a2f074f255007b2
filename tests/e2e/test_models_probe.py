"""`models --probe`: one short request tells whether a model follows a system instruction
(the scripted OpenAI-compatible server plays a model that obeys it, and a chat format that
drops the system message, as llama.cpp's `gemma` does)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.e2e.cli_runner import run_cli
from tests.fakes.instructed import drops_the_system_message, obeys_what_reaches_it
from tests.fakes.openai_server import FakeOpenAI


def _probe(server: FakeOpenAI, home: Path) -> dict[str, Any]:
    run = run_cli("models", "--api", "openai", "--host", server.url, "--probe", "--json", home=home)
    assert run.code == 0, run.stderr
    (line,) = run.events
    return line


def test_a_model_that_follows_the_system_instruction(loki_home: Path) -> None:
    with FakeOpenAI(models=("smollm2",)) as server:
        server.script(obeys_what_reaches_it)
        line = _probe(server, loki_home)
    assert line["probe"] == {"verdict": "follows", "answer": "Zorblax."}
    (request,) = server.chat_requests
    assert request["max_tokens"] == 16  # one short request


def test_a_server_thatdrops_the_system_message_is_found_out(loki_home: Path) -> None:
    with FakeOpenAI(models=("smollm2",)) as server:
        server.script(drops_the_system_message, drops_the_system_message)
        line = _probe(server, loki_home)
        plain = run_cli(
            "models", "--api", "openai", "--host", server.url, "--probe", home=loki_home
        )
    assert line["probe"] == {"verdict": "ignores", "answer": "Paris."}
    assert "n'a pas suivi la consigne système" in plain.stdout
    assert "premier message" in plain.stdout
