"""One owner of settings.json: every change is a read-modify-write under one lock, so two
writers (threads of this process, or another process) never lose each other's changes."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from loki_desktop.core.settings import Settings
from loki_desktop.persistence.settings_file import SettingsFile
from tests.conftest import REPO

ROUNDS = 40

# A second process writing the same file: the CLI (`mcp enable`, `mcp login`) while the
# window is open. It adds ui["<tag><i>"] = i, one read-modify-write at a time.
CHILD = """
import sys
from pathlib import Path
from loki_desktop.persistence.settings_file import SettingsFile

store = SettingsFile(Path(sys.argv[1]))
tag, rounds = sys.argv[2], int(sys.argv[3])
Path(sys.argv[4]).touch()  # started: the parent begins its own writes now
for i in range(rounds):
    store.update(lambda s, i=i: s.ui.__setitem__(f"{tag}{i}", i))
"""


def _add(store: SettingsFile, tag: str, rounds: int = ROUNDS) -> None:
    for i in range(rounds):
        store.update(lambda s, i=i: s.ui.__setitem__(f"{tag}{i}", i))


def _expected(*tags: str) -> dict[str, int]:
    return {f"{tag}{i}": i for tag in tags for i in range(ROUNDS)}


def test_update_reads_changes_and_writes_under_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    store = SettingsFile(path)
    store.save(Settings(model="qwen", language="en"))
    written = store.update(lambda s: setattr(s, "max_rounds", 5))
    assert written == Settings(model="qwen", language="en", max_rounds=5)
    assert json.loads(path.read_text())["max_rounds"] == 5
    assert store.load() == written


def test_a_change_that_raises_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    store = SettingsFile(path)
    store.save(Settings(model="qwen"))
    before = path.read_bytes()

    def refuse(settings: Settings) -> None:
        settings.model = "other"
        raise ValueError("refused")

    with pytest.raises(ValueError, match="refused"):
        store.update(refuse)
    assert path.read_bytes() == before
    store.update(lambda s: setattr(s, "language", "en"))  # the lock was given back
    assert store.load().language == "en"


def test_threads_of_one_process_lose_no_change(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    # two owners of the same file in one process (the window's and the MCP service's)
    stores = [SettingsFile(path), SettingsFile(path)]
    threads = [
        threading.Thread(target=_add, args=(stores[n % 2], tag)) for n, tag in enumerate("abcd")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert SettingsFile(path).load().ui == _expected(*"abcd")


def test_two_processes_lose_no_change(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    SettingsFile(path).save(Settings(language="en"))
    started = tmp_path / "child-started"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), "child", str(ROUNDS), str(started)], cwd=REPO
    )
    try:
        deadline = time.monotonic() + 120  # a process start under load
        while not started.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        _add(SettingsFile(path), "parent")
        assert child.wait(timeout=120) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    settings = SettingsFile(path).load()
    assert settings.ui == _expected("parent", "child")
    assert settings.language == "en"
