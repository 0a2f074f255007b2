"""`ask --max-tokens N --timeout S`: the caps reach the server, end the turn with their reason,
and each notice says its code in --json."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.cli_runner import ask_json as ask
from tests.e2e.cli_runner import run_cli
from tests.fakes.ollama_server import FakeOllama, Reply

PASSAGE = "Encore et toujours la même phrase, mot pour mot, sans fin. "


def test_a_length_cap_ends_the_turn_with_its_reason_and_a_coded_notice(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(Reply.text(*[f"m{n} " for n in range(2000)]))
    run = ask(ollama, workspace, loki_home, "--max-tokens", "40")
    assert run.code == 0, run.stderr
    assert ollama.chat_requests[0]["options"]["num_predict"] == 40
    assert len(run.of_type("token")) == 40
    (notice,) = run.of_type("notice")
    assert notice["code"] == "length"
    assert set(notice) == {"type", "code", "message"}
    assert run.events[-1]["reason"] == "length"


def test_a_loop_ends_the_turn_as_repetition(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(Reply.text("Alors. ", *[PASSAGE] * 200))
    run = ask(ollama, workspace, loki_home)
    assert run.code == 0, run.stderr
    assert [n["code"] for n in run.of_type("notice")] == ["repetition"]
    assert run.events[-1]["reason"] == "repetition"


def test_the_flags_refuse_a_negative_cap(workspace: Path, loki_home: Path) -> None:
    run = run_cli("ask", "x", "--timeout", "-1", home=loki_home)
    assert run.code == 2
    assert "négatif" in run.stderr
