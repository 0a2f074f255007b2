"""`loki-desktop ask` end to end: the real CLI process and ollama client, a scripted server."""

from __future__ import annotations

import json
import os
from pathlib import Path

from loki_desktop.persistence.history import History
from tests.e2e.cli_runner import ask_json as ask
from tests.e2e.cli_runner import run_cli
from tests.fakes.ollama_server import FakeOllama, Reply


def test_tokens_then_done_in_the_documented_shapes(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(Reply.text("Bon", "jour !"))
    run = ask(ollama, workspace, loki_home)
    assert run.code == 0, run.stderr
    events = run.events
    assert events[:2] == [{"type": "token", "text": "Bon"}, {"type": "token", "text": "jour !"}]
    assert events[-1]["type"] == "done"
    assert events[-1]["reason"] == "completed"
    assert set(events[-1]) == {"type", "reason", "session", "stats"}
    request = ollama.chat_requests[0]
    assert request["model"] == "qwen2.5-coder:7b"  # the first model the server lists
    assert request["options"]["num_ctx"] == 8192
    assert request["stream"] is True
    assert request["messages"][0]["role"] == "system"
    assert request["messages"][-1] == {"role": "user", "content": "Bonjour"}
    assert {t["function"]["name"] for t in request["tools"]} >= {"read_file", "write_file"}


def test_a_scripted_write_file_creates_the_file(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(
        Reply.tool("write_file", {"path": "notes/todo.md", "content": "- tester Loki\n"}),
        Reply.text("Fichier créé."),
    )
    run = ask(ollama, workspace, loki_home)
    assert run.code == 0, run.stderr
    assert (workspace / "notes" / "todo.md").read_text() == "- tester Loki\n"
    call = run.of_type("tool_call")[0]
    result = run.of_type("tool_result")[0]
    assert call["name"] == "write_file"
    assert call["args"] == {"path": "notes/todo.md", "content": "- tester Loki\n"}
    assert result == {
        "type": "tool_result",
        "id": call["id"],
        "name": "write_file",
        "ok": True,
        "summary": result["summary"],
        "change": {"path": "notes/todo.md", "kind": "added", "added": 1, "removed": 0},
    }
    # the tool result reached the next request
    assert ollama.chat_requests[1]["messages"][-1]["role"] == "tool"
    assert ollama.chat_requests[1]["messages"][-1]["tool_name"] == "write_file"


def test_every_escape_attempt_fails_and_touches_nothing_outside(
    ollama: FakeOllama, workspace: Path, loki_home: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("top secret")
    os.symlink(outside, workspace / "door")
    os.symlink(outside / "secret.txt", workspace / "secret-link.txt")
    (workspace / ".git").mkdir()
    attempts = [
        ("read_file", {"path": "../outside/secret.txt"}),
        ("read_file", {"path": str(outside / "secret.txt")}),
        ("read_file", {"path": "secret-link.txt"}),
        ("read_file", {"path": "door/secret.txt"}),
        ("read_file", {"path": "a\u0000b"}),
        ("write_file", {"path": "../outside/pwned.txt", "content": "x"}),
        ("write_file", {"path": "door/pwned.txt", "content": "x"}),
        ("write_file", {"path": ".git/config", "content": "x"}),
        ("edit_file", {"path": "secret-link.txt", "old_text": "top", "new_text": "no"}),
        ("list_dir", {"path": "../outside"}),
        ("grep_search", {"pattern": "secret", "path": "door"}),
    ]
    ollama.script(Reply.tools(*attempts), Reply.text("Je n'ai pas pu."))
    run = ask(ollama, workspace, loki_home)
    assert run.code == 0, run.stderr
    results = run.of_type("tool_result")
    assert len(results) == len(attempts)
    assert all(result["ok"] is False for result in results)
    assert "top secret" not in run.stdout
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == "top secret"
    assert list((workspace / ".git").iterdir()) == []


def test_run_shell_without_allow_shell_is_refused_and_not_run(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(Reply.tool("run_shell", {"command": "touch ran.txt"}), Reply.text("Refusé."))
    run = ask(ollama, workspace, loki_home)
    assert run.code == 0, run.stderr
    assert run.of_type("tool_result")[0]["ok"] is False
    assert not (workspace / "ran.txt").exists()
    tool_message = ollama.chat_requests[1]["messages"][-1]
    assert "did not approve" in tool_message["content"]


def test_run_shell_with_allow_shell_runs_in_the_workspace(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(Reply.tool("run_shell", {"command": "touch ran.txt"}), Reply.text("Fait."))
    run = ask(ollama, workspace, loki_home, "--allow-shell")
    assert run.code == 0, run.stderr
    assert run.of_type("tool_result")[0]["ok"] is True
    assert (workspace / "ran.txt").exists()


def test_with_review_on_ask_refuses_writes_unless_allow_writes(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    (loki_home / "settings.json").write_text(json.dumps({"review_writes": True}))
    ollama.script(
        Reply.tool("write_file", {"path": "a.txt", "content": "x\n"}), Reply.text("Refusé.")
    )
    run = ask(ollama, workspace, loki_home)
    assert run.code == 0, run.stderr
    assert run.of_type("tool_result")[0]["ok"] is False
    assert not (workspace / "a.txt").exists()
    assert "did not approve" in ollama.chat_requests[1]["messages"][-1]["content"]

    ollama.script(
        Reply.tool("write_file", {"path": "a.txt", "content": "x\n"}), Reply.text("Fait.")
    )
    run = ask(ollama, workspace, loki_home, "--allow-writes")
    assert run.code == 0, run.stderr
    assert run.of_type("tool_result")[0]["ok"] is True
    assert (workspace / "a.txt").read_text() == "x\n"


def test_a_closed_port_fails_fast_with_a_clear_sentence(workspace: Path, loki_home: Path) -> None:
    run = run_cli(
        "ask",
        "Bonjour",
        "--json",
        "--host",
        "http://127.0.0.1:9",
        "--workspace",
        str(workspace),
        home=loki_home,
    )
    assert run.code == 1
    assert run.seconds < 20  # refused at once: no retries, no connect timeout waited out
    assert "Ollama est injoignable à http://127.0.0.1:9" in run.stderr
    assert "ollama serve" in run.stderr
    assert run.events[-1]["type"] == "done"
    assert run.events[-1]["reason"] == "error"


def test_an_unknown_model_names_the_available_ones(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    run = ask(ollama, workspace, loki_home, "--model", "mistral:7b")
    assert run.code == 1
    assert "mistral:7b" in run.stderr
    assert "qwen2.5-coder:7b" in run.stderr
    assert "llama3.1:8b" in run.stderr


def test_a_stream_cut_midway_keeps_the_partial_answer(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(Reply.text("Voici ", "le ", "début ", "et la suite", cut_after=3))
    run = ask(ollama, workspace, loki_home)
    assert run.code == 1
    assert [e["text"] for e in run.of_type("token")] == ["Voici ", "le ", "début "]
    assert run.events[-1]["reason"] == "error"
    assert "coupée" in run.stderr or "arrêtée" in run.stderr
    session = run.events[-1]["session"]
    messages = History(loki_home / "history.db").messages(session)
    assert [(m.role, m.content, m.cut) for m in messages] == [
        ("user", "Bonjour", False),
        ("assistant", "Voici le début ", True),
    ]


def test_session_continues_a_conversation_with_its_history(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(Reply.text("Enchanté, Ada."), Reply.text("Vous vous appelez Ada."))
    first = ask(ollama, workspace, loki_home, prompt="Je m'appelle Ada.")
    session = first.events[-1]["session"]
    second = ask(ollama, workspace, loki_home, "--session", session, prompt="Mon nom ?")
    assert second.code == 0, second.stderr
    assert second.events[-1]["session"] == session
    sent = [(m["role"], m["content"]) for m in ollama.chat_requests[1]["messages"][1:]]
    assert sent == [
        ("user", "Je m'appelle Ada."),
        ("assistant", "Enchanté, Ada."),
        ("user", "Mon nom ?"),
    ]


def test_an_unknown_session_is_an_error(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    run = ask(ollama, workspace, loki_home, "--session", "nope")
    assert run.code == 1
    assert "introuvable" in run.stderr


def test_max_rounds_stops_with_a_notice(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    (loki_home / "settings.json").write_text('{"max_rounds": 2}')
    ollama.script(*[Reply.tool("list_dir", {}) for _ in range(5)])
    run = ask(ollama, workspace, loki_home)
    assert run.code == 0, run.stderr
    assert len(run.of_type("tool_call")) == 2
    assert len(run.of_type("notice")) == 1
    assert run.events[-1]["reason"] == "max_rounds"
    assert len(ollama.chat_requests) == 3


def test_bad_arguments_go_back_to_the_model_and_the_turn_goes_on(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(
        Reply.tools(("read_file", '{"path": '), ("read_file", {"file": "x"}), ("explode", {})),
        Reply.text("Compris."),
    )
    run = ask(ollama, workspace, loki_home)
    assert run.code == 0, run.stderr
    assert [r["ok"] for r in run.of_type("tool_result")] == [False, False, False]
    tool_messages = [
        m["content"] for m in ollama.chat_requests[1]["messages"] if m["role"] == "tool"
    ]
    assert "not valid JSON" in tool_messages[0]
    assert "unexpected argument 'file'" in tool_messages[1]
    assert "unknown tool 'explode'" in tool_messages[2]
    assert run.of_type("token")[0]["text"] == "Compris."


def test_plain_mode_streams_the_answer_on_stdout_and_tools_on_stderr(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(Reply.tool("list_dir", {}), Reply.text("Le dossier ", "est vide."))
    run = run_cli(
        "ask",
        "Que contient le dossier ?",
        "--host",
        ollama.url,
        "--workspace",
        str(workspace),
        home=loki_home,
    )
    assert run.code == 0, run.stderr
    assert run.stdout == "Le dossier est vide.\n"
    assert "list_dir" in run.stderr
    assert "[session " in run.stderr


def test_models_lists_the_server_models(ollama: FakeOllama, loki_home: Path) -> None:
    run = run_cli("models", "--host", ollama.url, home=loki_home)
    assert run.code == 0
    assert run.stdout.splitlines() == [
        "qwen2.5-coder:7b  7.6B  outils",
        "llama3.1:8b  7.6B  outils",
    ]


def test_models_on_a_closed_port_fails_clearly(loki_home: Path) -> None:
    run = run_cli("models", "--host", "http://127.0.0.1:9", home=loki_home)
    assert run.code == 1
    assert "injoignable" in run.stderr


def test_version(loki_home: Path) -> None:
    run = run_cli("--version", home=loki_home)
    assert run.code == 0
    assert run.stdout.startswith("loki-desktop 0.")


def test_ask_imports_neither_mcp_nor_qt(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(Reply.text("ok"))
    run = run_cli(
        "ask",
        "Bonjour",
        "--json",
        "--host",
        ollama.url,
        "--workspace",
        str(workspace),
        home=loki_home,
        python_flags=("-X", "importtime"),
    )
    assert run.code == 0, run.stderr[-2000:]
    imported = {
        line.split("|")[-1].strip()
        for line in run.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "httpx" in imported  # the trace is real
    assert "ollama" not in imported  # our own transport, not the ollama package
    # only the command's own parser is built
    assert not {f"loki_desktop.cli.{name}" for name in ("mcp", "skills", "check")} & imported
    assert not {name for name in imported if name == "mcp" or name.startswith("mcp.")}
    assert not {name for name in imported if name.startswith("PySide6")}
