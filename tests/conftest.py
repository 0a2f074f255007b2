"""Shared fixtures: a private $LOKI_HOME, an in-memory keyring, the scripted Ollama server."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest

from loki_desktop.core.i18n import set_language, set_typography
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.persistence.history import History
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.ollama_server import FakeOllama

REPO = Path(__file__).resolve().parent.parent

# Any test that touches Qt (pytest-qt's qapp, the watcher on a qasync loop) runs offscreen;
# tests/ui/conftest.py refines it with a fixed screen size.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _start_order(item: pytest.Item) -> int:
    """Longest first: tests marked slow (a wheel build and install, a browser, the window in
    a real display), then the other whole processes (tests/e2e), then the rest. With the
    suite spread over the cores (`make test`: pytest-xdist), the long ones start at once
    and the short ones fill in around them, instead of one long test ending the run alone."""
    if item.get_closest_marker("slow") is not None:
        return 0
    return 1 if item.path.is_relative_to(REPO / "tests" / "e2e") else 2


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_start_order)  # stable: the order inside each group stays as collected


@pytest.fixture(autouse=True)
def loki_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own data folder; nothing touches the real one."""
    home = tmp_path / "loki-home"
    home.mkdir()
    monkeypatch.setenv("LOKI_HOME", str(home))
    for name in ("OLLAMA_HOST", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture(autouse=True)
def french(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Tests read French, the source language, whatever the machine's locale: no locale at
    all means French, in child processes too (and tools such as bash keep their English,
    which the references are read in). A test that wants English asks for it (`english`);
    a test that switched the language in-process (app.main does) does not leave it switched."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    set_language("fr")
    yield
    set_language("fr")
    set_typography(False)


@pytest.fixture
def english(monkeypatch: pytest.MonkeyPatch) -> None:
    """The English catalogue, in-process and in child processes (Loki's own checker messages
    were written in English first; these tests hold the English wording)."""
    monkeypatch.setenv("LANGUAGE", "en")
    set_language("en")


@pytest.fixture(autouse=True)
def collect_in_the_main_thread() -> Iterator[None]:
    """As in the app (ui.collector): no cyclic collection from a worker thread mid-test.

    Once a test has made a QApplication (the window tests, the watcher on a qasync loop,
    the icon renderer), Qt objects live on for the whole run; the collector running in a
    worker thread (an HTTP or MCP thread) could free one there and crash Qt. Every test
    collects in the main thread at its end instead.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    yield
    # the young generations, where a test's garbage is; the old one is collected as usual
    # once collection is back on, between tests, in this thread (a full collection at each
    # teardown would add about a minute to the run)
    gc.collect(1)
    if was_enabled:
        gc.enable()


@pytest.fixture(autouse=True)
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


@pytest.fixture
def store(tmp_path: Path) -> Iterator[History]:
    """A real history.db in a tmp folder."""
    history = History(tmp_path / "history.db")
    yield history
    history.close()


@pytest.fixture
async def backend(ollama: FakeOllama) -> AsyncIterator[OllamaBackend]:
    """The real Ollama backend, talking to the scripted server."""
    client = OllamaBackend(ollama.url)
    yield client
    await client.close()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "workspace"
    folder.mkdir()
    return folder


def cli_env(home: Path, **extra: str) -> dict[str, str]:
    """Environment for running `python -m loki_desktop` as a child process."""
    env = dict(os.environ)
    env.update(LOKI_HOME=str(home), PYTHONPATH=str(REPO), PYTHONUTF8="1")
    for name in ("OLLAMA_HOST", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        env.pop(name, None)  # the test's own servers only
    env.update(extra)
    return env


PYTHON = sys.executable


# --- fuzzing: the count of inputs per parser, from every worker (tests/fuzz) ---------------


def pytest_sessionfinish(session: pytest.Session) -> None:
    from tests.fuzz.counts import TRIED

    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # a pytest-xdist worker: its controller prints them
        workeroutput["fuzz_tried"] = dict(TRIED)


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's: a worker has finished
def pytest_testnodedown(node: Any, error: object) -> None:
    from tests.fuzz.counts import TRIED

    TRIED.update(getattr(node, "workeroutput", {}).get("fuzz_tried", {}))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    from tests.fuzz.counts import TRIED

    if TRIED:
        terminalreporter.section("fuzzing: inputs tried per parser")
        for parser, count in sorted(TRIED.items()):
            terminalreporter.write_line(f"{parser:<34} {count:>8}")
