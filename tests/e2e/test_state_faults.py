"""Issue 16 (state that survives anything), end to end: real `ask` processes, real files,
the scripted Ollama server."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import Any

from loki_desktop.persistence.history import History
from tests.conftest import PYTHON, REPO, cli_env
from tests.e2e.cli_runner import ask_args, ask_json, kill_9_when, run_cli
from tests.fakes.http_proxy import RecordingProxy
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
    assert "num_ctx" not in sent["options"]  # its default: automatic, not sent


# --- 16.5: one turn at a time per conversation, across processes --------------------------


def _ask_argv(server: FakeOllama, workspace: Path, prompt: str, *extra: str) -> list[str]:
    args = ask_args(server, workspace, prompt, "--no-skills", *extra)
    return [PYTHON, "-m", "loki_desktop", *args]


def _echo(body: dict[str, Any]) -> Reply:
    """Answers the last user message by name, slowly enough for turns to overlap."""
    question = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    return Reply.text(*[f"réponse à {question} "] * 8, token_delay=0.05)


def test_four_asks_on_one_session_at_once_do_not_interleave(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(Reply.text("Prêt."))
    session = ask_json(ollama, workspace, loki_home).events[-1]["session"]
    ollama.script(*[_echo] * 4)
    children = [
        subprocess.Popen(
            _ask_argv(ollama, workspace, f"p{i}", "--session", session),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env=cli_env(loki_home),
        )
        for i in range(1, 5)
    ]
    for child in children:
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
        assert json.loads(out.splitlines()[-1])["type"] == "done"

    messages = History(loki_home / "history.db").messages(session)[2:]
    pairs = [(messages[i], messages[i + 1]) for i in range(0, len(messages), 2)]
    assert len(pairs) == 4
    for question, answer in pairs:
        assert question.role == "user"
        assert answer.role == "assistant"
        assert answer.content.startswith(f"réponse à {question.content} ")
    assert sorted(q.content for q, _ in pairs) == ["p1", "p2", "p3", "p4"]
    # and each request the model got ended on its own question, after whole exchanges
    for body in ollama.chat_requests[1:]:
        roles = [m["role"] for m in body["messages"] if m["role"] != "system"]
        assert roles == ["user", "assistant"] * (len(roles) // 2) + ["user"]


def test_a_second_turn_waits_with_a_notice_until_the_first_is_done(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(Reply.text("Prêt."))
    session = ask_json(ollama, workspace, loki_home).events[-1]["session"]
    holder = History(loki_home / "history.db")
    lock = holder.lock_turn(session)  # a turn of another process, in progress
    assert lock is not None
    ollama.script(Reply.text("Enfin."))
    with subprocess.Popen(
        _ask_argv(ollama, workspace, "Et alors ?", "--session", session),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=cli_env(loki_home),
    ) as child:
        assert child.stdout is not None
        first = json.loads(child.stdout.readline())
        assert first["type"] == "notice"
        assert "attend" in first["message"]
        # while it waits, nothing reached the model and nothing was stored
        assert len(ollama.chat_requests) == 1
        assert len(holder.messages(session)) == 2
        lock.release()
        rest = [json.loads(line) for line in child.stdout]
        child.wait(timeout=60)
    assert child.returncode == 0
    assert rest[-1]["type"] == "done"
    assert rest[-1]["reason"] == "completed"
    assert [m.content for m in holder.messages(session)][2:] == ["Et alors ?", "Enfin."]
    holder.close()


def test_a_turn_lock_held_by_a_killed_process_is_free(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(Reply.text("Prêt."))
    session = ask_json(ollama, workspace, loki_home).events[-1]["session"]
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from loki_desktop.persistence.history import History\n"
        f"lock = History(Path({str(loki_home / 'history.db')!r})).lock_turn({session!r})\n"
        "print('locked' if lock else 'busy', flush=True)\n"
        "time.sleep(600)\n"
    )
    with subprocess.Popen(
        [PYTHON, "-c", script],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=cli_env(loki_home),
    ) as owner:
        assert owner.stdout is not None
        assert owner.stdout.readline().strip() == "locked"
        assert History(loki_home / "history.db").lock_turn(session) is None
        owner.send_signal(signal.SIGKILL)
        owner.wait(timeout=10)
    ollama.script(Reply.text("Me voici."))
    run = ask_json(ollama, workspace, loki_home, "--session", session)
    assert run.code == 0, run.stderr
    assert not run.of_type("notice")  # no wait: the dead owner's lock went with it
    assert run.of_type("token")[0]["text"] == "Me voici."


# --- 16.3: a call left without a result by kill -9 gets one when the conversation loads ----


def test_after_kill_9_during_a_tool_the_next_turn_sends_no_unanswered_call(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(Reply.text("Prêt."))
    session = ask_json(ollama, workspace, loki_home).events[-1]["session"]
    ollama.script(Reply.tool("run_shell", {"command": "sleep 5"}))
    args = ask_args(ollama, workspace, "Attends", "--session", session, "--allow-shell")
    kill_9_when(args, loki_home, lambda event: event["type"] == "tool_call")
    call_id = History(loki_home / "history.db").messages(session)[-1].tool_calls[0].id

    ollama.script(Reply.text("Reprenons."))
    run = ask_json(ollama, workspace, loki_home, "--session", session, prompt="Et alors ?")
    assert run.code == 0, run.stderr
    sent = ollama.chat_requests[-1]["messages"]
    roles = [m["role"] for m in sent if m["role"] != "system"]
    assert roles == ["user", "assistant", "user", "assistant", "tool", "user"]
    assert "interrupted" in sent[-2]["content"]
    assert sent[-2]["tool_name"] == "run_shell"
    stored = History(loki_home / "history.db").messages(session)
    result = next(m for m in stored if m.role == "tool")
    assert result.tool_call_id == call_id
    assert "interrompu" in result.meta.summary
    assert [m.role for m in stored][-2:] == ["user", "assistant"]


# --- 16.9: a proxy in the environment and no NO_PROXY: loopback Ollama is still reached ----


def test_ask_reaches_loopback_ollama_with_a_proxy_set_and_no_no_proxy(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ollama.script(Reply.text("Sans proxy."))
    with RecordingProxy(upstream=ollama.url) as proxy:
        run = run_cli(
            *["ask", "Bonjour", "--json", "--host", ollama.url, "--workspace", str(workspace)],
            home=loki_home,
            HTTP_PROXY=proxy.url,
            HTTPS_PROXY=proxy.url,
            http_proxy=proxy.url,
            https_proxy=proxy.url,
            NO_PROXY="",
            no_proxy="",
        )
    assert run.code == 0, run.stderr
    assert run.of_type("token")[0]["text"] == "Sans proxy."
    assert proxy.seen == []
