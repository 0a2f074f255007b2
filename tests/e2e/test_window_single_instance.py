"""The window as a process: it opens with or without Ollama, stays single, takes `--quick`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import PYTHON, cli_env
from tests.fakes.ollama_server import FakeOllama, Reply

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="local socket names and signals differ"),
]


def window_env(home: Path, host: str) -> dict[str, str]:
    (home / "settings.json").write_text(json.dumps({"host": host}), encoding="utf-8")
    env = cli_env(home, QT_QPA_PLATFORM="offscreen")
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    return env


def wait_for(predicate: Callable[[], object], within: float, what: str) -> None:
    end = time.monotonic() + within
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError(f"{what} (not within {within} s)")
        time.sleep(0.05)


@pytest.fixture
def launch(loki_home: Path) -> Iterator[Callable[[dict[str, str]], subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []

    def start(env: dict[str, str]) -> subprocess.Popen[str]:
        child = subprocess.Popen(
            [PYTHON, "-m", "loki_desktop"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        started.append(child)
        return child

    yield start
    for child in started:
        if child.poll() is None:
            child.kill()
        child.communicate(timeout=10)


def stop(child: subprocess.Popen[str]) -> tuple[int, str]:
    """End the window as a session would (SIGTERM): it closes cleanly, exit code 0."""
    child.send_signal(signal.SIGTERM)
    _out, err = child.communicate(timeout=30)
    return child.returncode, err


def test_the_window_opens_with_ollama_and_a_second_launch_hands_over(
    loki_home: Path, launch: Callable[[dict[str, str]], subprocess.Popen[str]]
) -> None:
    with FakeOllama() as ollama:
        ollama.script(Reply.text("Bonjour ", "du ", "terminal."))
        env = window_env(loki_home, ollama.url)
        first = launch(env)
        # the window asked the server for its models: it is up
        wait_for(
            lambda: any(path == "/api/tags" for _m, path, _b in ollama.requests) or first.poll(),
            60,
            "the window never asked Ollama for its models",
        )
        assert first.poll() is None

        started = time.monotonic()
        second = subprocess.run(
            [PYTHON, "-m", "loki_desktop", "--quick", "Une question rapide"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert second.returncode == 0, second.stderr
        assert time.monotonic() - started < 30  # handed over, not a second window kept open
        wait_for(
            lambda: ollama.chat_requests,
            30,
            "the running window never asked the quick question",
        )
        assert ollama.chat_requests[0]["messages"][-1]["content"] == "Une question rapide"

        third = subprocess.run(
            [PYTHON, "-m", "loki_desktop"], env=env, capture_output=True, text=True, timeout=60
        )
        assert third.returncode == 0, third.stderr
        assert first.poll() is None  # still the one window

        code, err = stop(first)
        assert code == 0, err
        assert "Traceback" not in err
    # the answer to the quick question was stored by the first instance
    from loki_desktop.persistence.history import History

    history = History(loki_home / "history.db")
    try:
        (info,) = history.list_conversations()
        texts = [m.content for m in history.messages(info.id)]
        assert texts == ["Une question rapide", "Bonjour du terminal."]
    finally:
        history.close()


def test_the_window_opens_without_ollama_and_closes_cleanly(
    loki_home: Path, launch: Callable[[dict[str, str]], subprocess.Popen[str]]
) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        host = f"http://127.0.0.1:{probe.getsockname()[1]}"
    env = window_env(loki_home, host)
    child = launch(env)
    wait_for(lambda: (loki_home / "window.lock").exists() or child.poll(), 60, "no window")
    # A second launch is handed over to the window: its loop still answers after trying the
    # closed port (refused at once, long before a new Python process is up) and showing the
    # banner. A positive sign that it lives, where a fixed sleep would prove nothing.
    second = subprocess.run(
        [PYTHON, "-m", "loki_desktop"], env=env, capture_output=True, text=True, timeout=60
    )
    assert second.returncode == 0, second.stderr
    assert child.poll() is None, child.communicate()[1]
    code, err = stop(child)
    assert code == 0, err
    assert "Traceback" not in err
    assert not os.path.exists(loki_home / "window.lock")  # released on the way out
