"""`loki-desktop changes` and `undo` end to end: real processes, the scripted server, real files.

Each command is its own process, so every test here also proves that checkpoints survive
a restart (they are written by `ask` and read back by `changes` / `undo`).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from loki_desktop.core.changes.recorder import ChangeRecorder
from loki_desktop.core.tools.jail import Workspace
from loki_desktop.persistence.checkpoints import CheckpointFolder
from loki_desktop.persistence.history import History
from tests.conftest import PYTHON, REPO, cli_env
from tests.e2e.cli_runner import ask_json, run_cli
from tests.fakes.ollama_server import FakeOllama, Reply

NAMES = ("a.py", "b.txt", "c.md")


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def scripted_turn(ollama: FakeOllama, workspace: Path, home: Path) -> tuple[str, dict[str, str]]:
    """A turn that modifies two files, creates one and edits one; returns the session and
    the hashes of the files before it."""
    (workspace / "a.py").write_text("x = 1\n")
    (workspace / "b.txt").write_bytes(b"\x00\x01binaire\xff\n")
    (workspace / "c.md").write_text("# Titre\n\nancien texte\n")
    before = {name: sha(workspace / name) for name in NAMES}
    ollama.script(
        Reply.tools(
            ("write_file", {"path": "a.py", "content": "x = 2\n"}),
            ("write_file", {"path": "b.txt", "content": "plus binaire\n"}),
            ("write_file", {"path": "lib/nouveau.py", "content": "VALUE = 1\n"}),
            ("edit_file", {"path": "c.md", "old_text": "ancien", "new_text": "nouveau"}),
        ),
        Reply.text("C'est fait."),
    )
    run = ask_json(ollama, workspace, home, "--no-skills", prompt="Modifie les fichiers")
    assert run.code == 0, run.stderr
    session = run.events[-1]["session"]
    return session, before


def test_changes_then_undo_restores_every_byte_and_redo_puts_the_turn_back(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    session, before = scripted_turn(ollama, workspace, loki_home)
    after = {name: sha(workspace / name) for name in (*NAMES, "lib/nouveau.py")}

    listed = run_cli("changes", "--json", home=loki_home)
    assert listed.code == 0, listed.stderr
    data = json.loads(listed.stdout)
    assert data["session"] == session
    (turn,) = data["turns"]
    files = {f["path"]: (f["kind"], f["added"], f["removed"]) for f in turn["files"]}
    assert files == {
        "a.py": ("modified", 1, 1),
        "b.txt": ("modified", None, None),  # binary before: no line counts
        "lib/nouveau.py": ("added", 1, 0),
        "c.md": ("modified", 1, 1),
    }
    plain = run_cli("changes", "--session", session, home=loki_home)
    assert "ajouté    lib/nouveau.py  +1 −0" in plain.stdout

    dry = run_cli("undo", "--dry-run", home=loki_home)
    assert dry.code == 0, dry.stderr
    assert {name: sha(workspace / name) for name in after} == after  # nothing touched

    undo = run_cli("undo", home=loki_home)
    assert undo.code == 0, undo.stdout + undo.stderr
    assert {name: sha(workspace / name) for name in NAMES} == before
    assert not (workspace / "lib" / "nouveau.py").exists()
    history = History(loki_home / "history.db")
    note = history.messages(session)[-1]
    history.close()
    assert note.origin == "harness"
    assert note.meta.undo is not None
    assert note.meta.undo.removed == ("lib/nouveau.py",)

    again = run_cli("undo", home=loki_home)
    assert again.code == 2  # nothing left to undo
    redo = run_cli("undo", "--redo", home=loki_home)
    assert redo.code == 0, redo.stdout + redo.stderr
    assert {name: sha(workspace / name) for name in after} == after


def test_a_file_changed_since_the_turn_is_left_and_listed(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    session, before = scripted_turn(ollama, workspace, loki_home)
    (workspace / "a.py").write_text("x = 'à la main'\n")
    mine = sha(workspace / "a.py")

    undo = run_cli("undo", "--session", session, home=loki_home)
    assert undo.code == 3, undo.stdout + undo.stderr
    assert "laissé      a.py : modifié depuis le tour" in undo.stdout
    assert sha(workspace / "a.py") == mine
    assert sha(workspace / "b.txt") == before["b.txt"]
    assert not (workspace / "lib" / "nouveau.py").exists()

    forced = run_cli("undo", "--session", session, "--force", home=loki_home)
    assert forced.code == 0, forced.stdout + forced.stderr
    assert sha(workspace / "a.py") == before["a.py"]


def test_bad_input_exits_2(ollama: FakeOllama, workspace: Path, loki_home: Path) -> None:
    assert run_cli("undo", home=loki_home).code == 2  # no checkpoint at all yet
    session, _before = scripted_turn(ollama, workspace, loki_home)
    assert run_cli("undo", "--session", "nope", home=loki_home).code == 2
    assert run_cli("undo", "--session", session, "--turn", "9", home=loki_home).code == 2
    assert run_cli("undo", "--turn", "x", home=loki_home).code == 2
    assert run_cli("changes", "--session", "nope", home=loki_home).code == 2


@pytest.mark.slow
def test_kill_9_during_an_undo_leaves_each_file_wholly_old_or_new(
    workspace: Path, loki_home: Path
) -> None:
    count, size = 120, 1_000_000
    old = {f"f{i:03}.bin": bytes([i % 251]) * size for i in range(count)}
    new = {name: bytes([(data[0] + 1) % 251]) * size for name, data in old.items()}
    for name, data in old.items():
        (workspace / name).write_bytes(data)
    points = CheckpointFolder(loki_home / "checkpoints")
    recorder = ChangeRecorder(points, workspace, 1000)
    recorder.begin("conversation", 1)
    jail = Workspace(workspace, observer=recorder)
    for name, data in new.items():
        with jail.locate(name) as entry:
            jail.write(entry, data)
    points.close()
    hashes = {
        name: {hashlib.sha256(old[name]).digest(), hashlib.sha256(new[name]).digest()}
        for name in old
    }

    child = subprocess.Popen(
        [PYTHON, "-m", "loki_desktop", "undo", "--session", "conversation"],
        cwd=REPO,
        env=cli_env(loki_home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while not any(_first_byte(workspace / n) == old[n][0] for n in old):
            assert child.poll() is None, "the undo ended before any file could be seen restored"
            assert time.monotonic() < deadline
            time.sleep(0.002)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(timeout=60)
    restored = [n for n in old if (workspace / n).read_bytes() == old[n]]
    for name in old:
        assert hashlib.sha256((workspace / name).read_bytes()).digest() in hashes[name], name
    assert 0 < len(restored) < count, "the kill did not land in the middle of the undo"

    finish = run_cli("undo", "--session", "conversation", home=loki_home)
    assert finish.code == 0, finish.stdout + finish.stderr
    assert all((workspace / n).read_bytes() == old[n] for n in old)


def _first_byte(path: Path) -> int | None:
    try:
        with path.open("rb") as handle:
            head = handle.read(1)
    except OSError:
        return None
    return head[0] if head else None
