"""No process started by Loki, or by what Loki started, outlives `ask`: after a normal exit,
SIGINT, SIGTERM, SIGHUP and kill -9, with an MCP server busy in a call (and its helper,
started without setsid) and with a shell command and its background child."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import PYTHON, cli_env
from tests.e2e.cli_runner import quick_window
from tests.fakes.mcp_servers import TAG_VARIABLE, processes_tagged, script
from tests.fakes.ollama_server import FakeOllama, Reply

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc to find processes")

SIGNALS = {
    "SIGINT": (signal.SIGINT, 130),
    "SIGTERM": (signal.SIGTERM, 143),
    "SIGHUP": (signal.SIGHUP, 129),
    "kill -9": (signal.SIGKILL, -9),
}
GONE_WITHIN_S = 10  # generous under load; the supervisor and the guard act at once


def _eventually(condition: Callable[[], bool], within_s: float = 60) -> bool:
    deadline = time.monotonic() + within_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


class Ask:
    """`loki-desktop ask --json` running as a child process; its stdout read as it comes."""

    def __init__(self, home: Path, ollama: FakeOllama, workspace: Path, *extra: str, tag: str):
        argv = [PYTHON, "-m", "loki_desktop", "ask", "Vas-y", "--json", "--host", ollama.url]
        # a loaded machine may start the MCP server past ask's default 10 s wait
        argv += ["--workspace", str(workspace), "--mcp-wait", "120", *extra]
        # the tag marks ask's environment, hence what its shell commands start
        env = cli_env(home, **{TAG_VARIABLE: tag})
        self.process = subprocess.Popen(
            argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self.lines: list[dict[str, Any]] = []
        self.stderr: list[str] = []
        self._readers = [
            threading.Thread(target=self._read, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        with self.process.stdout:
            for line in self.process.stdout:
                if line.strip():
                    self.lines.append(json.loads(line))

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        with self.process.stderr:
            self.stderr += list(self.process.stderr)

    def saw(self, kind: str) -> bool:
        return any(line["type"] == kind for line in self.lines)

    def finish(self) -> int:
        code = self.process.wait(timeout=120)
        for reader in self._readers:
            reader.join(timeout=30)
        return code


def _left(tag: str, ask: Ask) -> list[str]:
    return [p for p in processes_tagged(tag) if not p.startswith(f"{ask.process.pid} ")]


def _servers(home: Path, tag: str) -> None:
    entry = {
        "enabled": True,
        "label": "helper",
        "command": [sys.executable, script("with_helper")],
        "params": {TAG_VARIABLE: tag},
    }
    (home / "settings.json").write_text(json.dumps({"mcp_servers": {"helper": entry}}))


@pytest.mark.parametrize("how", list(SIGNALS))
def test_a_signal_during_a_busy_mcp_call_leaves_no_process(
    loki_home: Path, ollama: FakeOllama, workspace: Path, tmp_path: Path, how: str
) -> None:
    tag = uuid.uuid4().hex
    _servers(loki_home, tag)
    marker = tmp_path / "busy"
    ollama.script(Reply.tool("mcp_helper_busy", {"marker": str(marker)}), Reply.text("?"))
    ask = Ask(loki_home, ollama, workspace, tag=tag)
    try:
        assert _eventually(marker.exists), ask.lines
        # the server, its helper (no setsid) and the supervisor
        assert len(_left(tag, ask)) == 3, _left(tag, ask)
        signum, code = SIGNALS[how]
        ask.process.send_signal(signum)
        assert ask.finish() == code
        if signum != signal.SIGKILL:  # the promised last line, whenever it can be written
            assert ask.lines[-1]["type"] == "done", ask.lines
            assert ask.lines[-1]["reason"] == "interrupted"
            assert ask.lines[-1]["session"]
        assert _eventually(lambda: _left(tag, ask) == [], GONE_WITHIN_S), _left(tag, ask)
    finally:
        ask.process.kill()
        ask.finish()


def test_a_normal_exit_ends_the_servers_helpers_too(
    loki_home: Path, ollama: FakeOllama, workspace: Path
) -> None:
    tag = uuid.uuid4().hex
    _servers(loki_home, tag)
    ollama.script(Reply.tool("mcp_helper_quick", {}), Reply.text("Fini."))
    ask = Ask(loki_home, ollama, workspace, tag=tag)
    assert ask.finish() == 0, ask.stderr
    assert ask.lines[-1]["reason"] == "completed"
    assert [line["ok"] for line in ask.lines if line["type"] == "tool_result"] == [True]
    assert _eventually(lambda: _left(tag, ask) == [], GONE_WITHIN_S), _left(tag, ask)


@pytest.mark.parametrize("how", list(SIGNALS))
def test_a_signal_during_a_shell_command_leaves_no_process(
    loki_home: Path, ollama: FakeOllama, workspace: Path, how: str
) -> None:
    tag = uuid.uuid4().hex
    command = "sleep 600 & echo started > started.txt; sleep 600"
    ollama.script(Reply.tool("run_shell", {"command": command}), Reply.text("?"))
    ask = Ask(loki_home, ollama, workspace, "--allow-shell", tag=tag)
    try:
        assert _eventually((workspace / "started.txt").exists), ask.lines
        assert _eventually(lambda: len(_left(tag, ask)) >= 3)  # sh, two sleeps (+ the guard)
        signum, code = SIGNALS[how]
        ask.process.send_signal(signum)
        assert ask.finish() == code
        if signum != signal.SIGKILL:
            assert ask.lines[-1]["reason"] == "interrupted", ask.lines
        assert _eventually(lambda: _left(tag, ask) == [], GONE_WITHIN_S), _left(tag, ask)
    finally:
        ask.process.kill()
        ask.finish()


def test_a_background_child_of_a_finished_command_ends_with_ask(
    loki_home: Path, ollama: FakeOllama, workspace: Path
) -> None:
    """Left running by its command on purpose (its output redirected): it lives on while
    Loki does, and ends when Loki exits."""
    tag = uuid.uuid4().hex
    command = "sleep 600 > /dev/null 2>&1 & echo $! > bg.pid"
    ollama.script(Reply.tool("run_shell", {"command": command}), Reply.text("Lancé."))
    ask = Ask(loki_home, ollama, workspace, "--allow-shell", tag=tag)
    assert ask.finish() == 0
    assert [line["ok"] for line in ask.lines if line["type"] == "tool_result"] == [True]
    assert _eventually(lambda: _left(tag, ask) == [], GONE_WITHIN_S), _left(tag, ask)


@pytest.mark.parametrize("how", ["SIGTERM", "kill -9"])
def test_the_window_killed_during_a_busy_mcp_call_leaves_no_process(
    loki_home: Path, ollama: FakeOllama, workspace: Path, tmp_path: Path, how: str
) -> None:
    tag = uuid.uuid4().hex
    _servers(loki_home, tag)
    settings = json.loads((loki_home / "settings.json").read_text())
    # rounds to spare: the model waits for the server's tool (below)
    settings |= {"host": ollama.url, "workspace": str(workspace), "max_rounds": 80}
    (loki_home / "settings.json").write_text(json.dumps(settings))
    marker = tmp_path / "busy"
    busy = Reply.tool("mcp_helper_busy", {"marker": str(marker)})

    def once_offered(body: dict[str, Any]) -> Reply:
        """The busy call once the server's tool is offered: a loaded machine can start the
        server after the 10 s the window's first message waits (it joins a later round)."""
        offered = {tool["function"]["name"] for tool in body.get("tools", [])}
        if "mcp_helper_busy" in offered:
            return busy
        time.sleep(1.0)  # the next round's request is the condition polled
        return Reply.tool("list_dir", {"path": "."})

    ollama.script(*[once_offered] * 60, Reply.text("?"))
    with quick_window(loki_home, "Vas-y") as window:
        try:
            assert _eventually(marker.exists), "the window never called the busy tool"
            assert len(processes_tagged(tag)) == 3  # supervisor, server, helper
            window.send_signal(SIGNALS[how][0])
            window.wait(timeout=60)
        finally:
            window.kill()
    assert _eventually(lambda: processes_tagged(tag) == [], GONE_WITHIN_S), processes_tagged(tag)
