"""Faults that cross every part: kill -9 mid-answer, a corrupt history, Ollama restarting,
a read-only workspace."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.assembly import build_agent
from loki_desktop.core.events import Done, Token
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from tests.conftest import PYTHON, REPO, cli_env
from tests.e2e.cli_runner import ask_args, ask_json, kill_9_when, quick_window
from tests.fakes.ollama_server import FakeOllama, Reply


def test_kill_9_mid_answer_leaves_a_valid_history_with_the_partial_answer(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    words = [f"mot{i} " for i in range(200)]
    ollama.script(Reply.text("Première réponse."), Reply.text(*words, token_delay=0.02))
    first = ask_json(ollama, workspace, loki_home)
    session = first.events[-1]["session"]

    seen = 0

    def tenth_token(event: dict[str, Any]) -> bool:
        nonlocal seen
        seen += event["type"] == "token"
        return seen == 10

    args = ask_args(ollama, workspace, "Raconte", "--session", session)
    kill_9_when(args, loki_home, tenth_token)

    db = sqlite3.connect(loki_home / "history.db")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()
    messages = History(loki_home / "history.db").messages(session)
    assert [(m.role, m.cut) for m in messages] == [
        ("user", False),
        ("assistant", False),
        ("user", False),
        ("assistant", True),
    ]
    assert messages[1].content == "Première réponse."
    partial = messages[3].content
    # everything printed before the kill was stored (the stream may have gone a bit further)
    assert partial.startswith("".join(words[:10]))
    assert len(partial) < len("".join(words))


def test_a_corrupt_history_is_moved_aside_and_the_app_goes_on_with_a_notice(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    (loki_home / "history.db").write_bytes(b"\x00garbage" * 500)
    ollama.script(Reply.text("Tout va bien."))
    run = ask_json(ollama, workspace, loki_home)
    assert run.code == 0, run.stderr
    notices = [event["message"] for event in run.of_type("notice")]
    assert any("mis de côté" in notice for notice in notices)
    kept = [p.name for p in loki_home.iterdir() if p.name.startswith("history.corrupt-")]
    assert len(kept) == 1
    assert run.of_type("token")[0]["text"] == "Tout va bien."


async def test_ollama_restarting_between_two_messages_does_not_break_the_next(
    workspace: Path, tmp_path: Path
) -> None:
    first_server = FakeOllama().start()
    port = first_server.port
    first_server.script(Reply.text("un"))
    backend = OllamaBackend(first_server.url)
    agent = build_agent(
        settings=Settings(model="qwen2.5-coder:7b"),
        backend=backend,
        store=History(tmp_path / "h.db"),
        workspace=workspace,
        approver=FixedApprover(False),
    )
    events = [event async for event in agent.run_turn("premier")]
    assert isinstance(events[-1], Done)
    assert events[-1].reason == "completed"
    conversation = events[-1].session
    first_server.stop()

    second_server = FakeOllama(port=port).start()  # same address, new process state
    second_server.script(Reply.text("deux"))
    try:
        events = [event async for event in agent.run_turn("second", conversation)]
    finally:
        second_server.stop()
        await backend.close()
    assert [e.text for e in events if isinstance(e, Token)] == ["deux"]
    assert isinstance(events[-1], Done)
    assert events[-1].reason == "completed"


def _read_only_command(workspace: Path, argv: list[str]) -> list[str]:
    """Run argv with `workspace` read-only: root ignores permission bits, so use a
    read-only bind mount in a private mount namespace."""
    if os.geteuid() != 0:
        workspace.chmod(0o555)
        return argv
    script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && shift && exec "$@"'
    return ["unshare", "--mount", "sh", "-c", script, str(workspace), "_", *argv]


def test_a_read_only_workspace_gives_clear_tool_errors(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    (workspace / "notes.txt").write_text("lecture seule\n")
    ollama.script(
        Reply.tools(
            ("write_file", {"path": "new.txt", "content": "x"}),
            ("edit_file", {"path": "notes.txt", "old_text": "seule", "new_text": "écriture"}),
            ("read_file", {"path": "notes.txt"}),
        ),
        Reply.text("Le dossier est en lecture seule."),
    )
    argv = [
        PYTHON,
        "-m",
        "loki_desktop",
        "ask",
        "Écris",
        "--json",
        "--host",
        ollama.url,
        "--workspace",
        str(workspace),
    ]
    child = subprocess.run(
        _read_only_command(workspace, argv),
        capture_output=True,
        text=True,
        cwd=REPO,
        env=cli_env(loki_home),
        timeout=60,
        check=False,
    )
    if child.returncode != 0 and "unshare" in child.stderr:
        pytest.fail(f"could not make a read-only workspace: {child.stderr}")
    assert child.returncode == 0, child.stderr
    events = [json.loads(line) for line in child.stdout.splitlines()]
    results = [e for e in events if e["type"] == "tool_result"]
    assert [r["ok"] for r in results] == [False, False, True]
    tool_messages = [
        m["content"] for m in ollama.chat_requests[1]["messages"] if m["role"] == "tool"
    ]
    for message in tool_messages[:2]:
        assert "read-only" in message.lower() or "permission denied" in message.lower()
    assert tool_messages[2] == "lecture seule\n"
    assert events[-1]["reason"] == "completed"
    assert (workspace / "notes.txt").read_text() == "lecture seule\n"
    assert not (workspace / "new.txt").exists()


def test_a_history_locked_by_another_program_is_reported_and_left_alone(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    ask_json(ollama, workspace, loki_home)  # creates history.db
    holder = sqlite3.connect(loki_home / "history.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        run = ask_json(ollama, workspace, loki_home, prompt="Encore")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert run.code == 1
    assert "verrouillé" in run.stderr
    assert "Traceback" not in run.stderr
    assert not [p for p in loki_home.iterdir() if "corrupt" in p.name]


def test_kill_9_of_the_window_mid_answer_keeps_the_partial_answer(
    ollama: FakeOllama, loki_home: Path
) -> None:
    """The window writes streamed text in batches (persistence.history_writer): a kill -9
    loses at most the last ~100 ms. Here the stream stalls after 20 words; with nothing
    more shown and nothing finishing the answer, the 20 words must reach the file on their
    own (the batch is written by time), and survive the kill whole."""
    words = [f"mot{i} " for i in range(400)]
    stall = Reply.text(*words, token_delay=0.01, pause_after=20)
    ollama.script(stall)
    (loki_home / "settings.json").write_text(json.dumps({"host": ollama.url}))
    db_path = loki_home / "history.db"

    def stored_answer() -> str:
        if not db_path.exists():
            return ""
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        try:
            rows = db.execute("SELECT text FROM answer_chunks ORDER BY message_id, seq")
            return "".join(row[0] for row in rows)
        except sqlite3.OperationalError:  # not created yet
            return ""
        finally:
            db.close()

    with quick_window(loki_home, "Raconte une histoire") as window:
        try:
            deadline = time.monotonic() + 60
            while stored_answer() != "".join(words[:20]):
                assert len(stored_answer()) <= len("".join(words[:20])), stored_answer()
                assert time.monotonic() < deadline, "the window did not store what it showed"
                assert window.poll() is None, "the window exited"
                time.sleep(0.05)
            window.send_signal(signal.SIGKILL)
            window.wait(timeout=10)
        finally:
            stall.resume.set()  # let the server's thread end
    assert window.returncode == -signal.SIGKILL

    db = sqlite3.connect(db_path)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()
    history = History(db_path)
    conversation = history.list_conversations()[0]
    messages = history.messages(conversation.id)
    history.close()
    assert [(m.role, m.cut) for m in messages] == [("user", False), ("assistant", True)]
    assert messages[0].content == "Raconte une histoire"
    assert messages[1].content == "".join(words[:20])
