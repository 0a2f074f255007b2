"""`ask` and `models` with `--api openai`: the real CLI process against the scripted
OpenAI-protocol server (SSE, tool-call argument deltas, errors)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.cli_runner import CliRun, run_cli
from tests.fakes.openai_server import Call, FakeOpenAI, Reply

MODEL = "Qwen/Qwen2.5-Coder-7B-Instruct"


def ask(server: FakeOpenAI, workspace: Path, home: Path, *extra: str, **env: str) -> CliRun:
    return run_cli(
        "ask",
        "Écris le fichier",
        "--api",
        "openai",
        "--host",
        server.url,
        "--model",
        MODEL,
        "--json",
        "--workspace",
        str(workspace),
        *extra,
        home=home,
        **env,
    )


def test_streams_tokens_runs_a_write_file_sent_in_pieces_and_ends_with_done(
    workspace: Path, loki_home: Path
) -> None:
    content = "def salut():\n    return 'bonjour'\n" * 3
    with FakeOpenAI() as server:
        server.script(
            Reply(
                tokens=["J'écris ", "le fichier."],
                calls=[Call("write_file", {"path": "src/salut.py", "content": content}, 6)],
            ),
            Reply.text("C'est ", "fait."),
        )
        run = ask(server, workspace, loki_home)
        requests = server.chat_requests
    assert run.code == 0, run.stderr
    events = run.events
    tokens = [e["text"] for e in events if e["type"] == "token"]
    assert tokens[:2] == ["J'écris ", "le fichier."]
    assert tokens[-2:] == ["C'est ", "fait."]
    call = run.of_type("tool_call")[0]
    assert call["name"] == "write_file"
    assert call["args"] == {"path": "src/salut.py", "content": content}
    assert run.of_type("tool_result")[0]["ok"] is True
    assert (workspace / "src" / "salut.py").read_text() == content
    assert events[-1]["type"] == "done"
    assert events[-1]["reason"] == "completed"
    # the second request carries the call with an id and the result tied to it
    assistant, result = requests[1]["messages"][-2:]
    sent_call = assistant["tool_calls"][0]
    assert json.loads(sent_call["function"]["arguments"])["path"] == "src/salut.py"
    assert result["role"] == "tool"
    assert result["tool_call_id"] == sent_call["id"]
    assert requests[0]["model"] == MODEL
    assert requests[0]["stream"] is True


def test_a_bad_key_exits_1_with_a_sentence_naming_the_server(
    workspace: Path, loki_home: Path
) -> None:
    with FakeOpenAI(api_key="sk-good") as server:
        run = ask(server, workspace, loki_home, OPENAI_API_KEY="sk-wrong")
        url = server.url
    assert run.code == 1
    assert url in run.stderr
    assert "clé d'API" in run.stderr
    assert "401" in run.stderr
    assert run.events[-1]["type"] == "done"
    assert run.events[-1]["reason"] == "error"


def test_the_environment_gives_the_url_and_the_key(workspace: Path, loki_home: Path) -> None:
    with FakeOpenAI(api_key="sk-good") as server:
        server.script(Reply.text("ok"))
        run = run_cli(
            "ask",
            "Bonjour",
            "--api",
            "openai",
            "--json",
            "--workspace",
            str(workspace),
            home=loki_home,
            OPENAI_BASE_URL=server.url,
            OPENAI_API_KEY="sk-good",
        )
        headers = server.headers
    assert run.code == 0, run.stderr
    assert run.of_type("token")[0]["text"] == "ok"
    assert all(h.get("Authorization") == "Bearer sk-good" for h in headers)


def test_models_lists_the_served_models_with_their_context(loki_home: Path) -> None:
    with FakeOpenAI(models=(MODEL, "mistral"), max_model_len=16384) as server:
        run = run_cli("models", "--api", "openai", "--host", server.url, "--json", home=loki_home)
    assert run.code == 0, run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert [line["name"] for line in lines] == [MODEL, "mistral"]
    assert {line["context_length"] for line in lines} == {16384}


def test_a_server_that_is_down_is_a_sentence(loki_home: Path, workspace: Path) -> None:
    with FakeOpenAI() as server:
        url = server.url
    run = run_cli("models", "--api", "openai", "--host", url, home=loki_home)
    assert run.code == 1
    assert url in run.stderr
    assert "injoignable" in run.stderr
