"""`loki-desktop eval`: the whole suite against replayed replies, so the runner and every
grader are tested — an oracle must pass every task, a saboteur must fail every one, and a
model that writes its calls as text passes only with the harness on."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.cli_runner import run_cli
from tests.fakes import openai_server
from tests.fakes.ollama_server import FakeOllama, Reply

FIRST_TWO_TASKS_WITH_HARNESS = ("--harness", "on", "--tasks", "2")


def summary_of(events: list[dict[str, object]]) -> dict[str, dict[str, object]]:
    (summary,) = [e for e in events if e["type"] == "summary"]
    results = summary["results"]
    assert isinstance(results, list)
    return {str(r["harness"]): r for r in results}


def test_an_oracle_passes_every_task(loki_home: Path) -> None:
    run = run_cli(
        "eval", "--replay", "oracle", "--harness", "on", "--json", home=loki_home, timeout=600
    )
    assert run.code == 0, run.stderr
    tasks = run.of_type("task")
    assert len(tasks) == 40
    failed = [(t["task"], t["reasons"], t["error"]) for t in tasks if not t["passed"]]
    assert not failed
    assert summary_of(run.events)["on"]["passed"] == 40
    assert run.events[-1]["type"] == "summary"
    kept = json.loads((loki_home / "eval" / "last.json").read_text())
    assert kept["results"][0]["passed"] == 40
    assert "| replay | on | 40/40 |" in (loki_home / "eval" / "last.md").read_text()


def test_a_saboteur_fails_every_task(loki_home: Path) -> None:
    run = run_cli(
        "eval", "--replay", "sabotage", "--harness", "on", "--json", home=loki_home, timeout=600
    )
    assert run.code == 0, run.stderr
    passed = [t["task"] for t in run.of_type("task") if t["passed"]]
    assert passed == []
    assert summary_of(run.events)["on"]["total"] == 40


def test_calls_written_as_text_pass_only_with_the_harness(loki_home: Path) -> None:
    run = run_cli("eval", "--replay", "text", "--tasks", "10", "--json", home=loki_home)
    assert run.code == 0, run.stderr
    summary = summary_of(run.events)
    assert summary["on"]["passed"] == 10
    assert summary["off"]["passed"] == 0
    assert summary["off"]["tool_calls"] == 0


def test_record_then_replay_gives_the_same_results(loki_home: Path, tmp_path: Path) -> None:
    record = tmp_path / "rec"
    with FakeOllama(models=("small:1b",)) as server:
        server.script(
            Reply.tool("write_file", {"path": "hello.txt", "content": "Bonjour le monde\n"}),
            Reply.text("Fait."),
            Reply.text("Je ne sais pas."),
        )
        run = run_cli(
            "eval",
            "--model",
            "small:1b",
            "--host",
            server.url,
            *FIRST_TWO_TASKS_WITH_HARNESS,
            "--record",
            str(record),
            "--json",
            home=loki_home,
        )
    assert run.code == 0, run.stderr
    first = [(t["task"], t["passed"]) for t in run.of_type("task")]
    assert first == [("file-hello", True), ("file-gitignore", False)]
    assert (record / "small_1b" / "on" / "file-hello.json").is_file()
    again = run_cli(
        "eval",
        "--model",
        "small:1b",
        "--replay",
        str(record),
        "--harness",
        "on",
        "--tasks",
        "2",
        "--json",
        home=loki_home,
    )
    assert [(t["task"], t["passed"]) for t in again.of_type("task")] == first


def test_runs_against_an_openai_compatible_server(loki_home: Path) -> None:
    """`--api openai`: the same tasks against vLLM, llama.cpp or LM Studio."""
    model = "Qwen/Qwen2.5-Coder-7B-Instruct"
    with openai_server.FakeOpenAI(models=(model,)) as server:
        server.script(
            openai_server.Reply.tool(
                "write_file", {"path": "hello.txt", "content": "Bonjour le monde\n"}
            ),
            openai_server.Reply.text("Fait."),
            openai_server.Reply.text("Je ne sais pas."),
        )
        run = run_cli(
            "eval",
            "--api",
            "openai",
            "--host",
            server.url,
            *FIRST_TWO_TASKS_WITH_HARNESS,
            "--json",
            home=loki_home,
        )
        requests = server.chat_requests
    assert run.code == 0, run.stderr
    assert [(t["task"], t["passed"]) for t in run.of_type("task")] == [
        ("file-hello", True),
        ("file-gitignore", False),
    ]
    # no --model: the server's first model, asked over the OpenAI protocol with tools
    assert {r["model"] for r in requests} == {model}
    assert "tools" in requests[0]
    assert summary_of(run.events)["on"]["model"] == model


def test_bad_input_exits_2(loki_home: Path) -> None:
    assert run_cli("eval", "--suite", "nope", home=loki_home).code == 2
    assert run_cli("eval", "--tasks", "0", "--replay", "oracle", home=loki_home).code == 2
    assert run_cli("eval", "--replay", "/no/such/dir", home=loki_home).code == 2
