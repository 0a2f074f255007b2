"""A full disk under Loki's data folder: no file is changed without its way back.

Tests run as root, so permission bits prove nothing: the data folder is a tiny tmpfs mounted
in a private mount namespace (`unshare --mount`), where the disk really is full.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import PYTHON, REPO, cli_env
from tests.e2e.cli_runner import ask_args, ask_json, kill_9_when, run_cli
from tests.fakes.ollama_server import FakeOllama, Reply

DOC_BYTES = 3_800_000


def _can_mount() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "--mount", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0


needs_mount = pytest.mark.skipif(
    not _can_mount(), reason="no private mount namespace here (unshare/mount refused)"
)


def run_on_tiny_disk(
    home: Path, size: str, argv: list[str], leftovers: Path
) -> tuple[int, list[dict[str, Any]], str]:
    """Run argv with `home` a tmpfs of `size`; the `.part` files left there, and the
    checkpoint index's rows, are written to `leftovers` before the namespace goes."""
    script = (
        'mount -t tmpfs -o size="$1" tmpfs "$0" || exit 99; shift 2; "$@"; code=$?; '
        'find "$H" -name "*.part" > "$L"; exit $code'
    )
    child = subprocess.run(
        ["unshare", "--mount", "sh", "-c", script, str(home), size, "_", *argv],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**cli_env(home), "H": str(home), "L": str(leftovers)},
        timeout=120,
        check=False,
    )
    assert child.returncode != 99, child.stderr
    events = [json.loads(line) for line in child.stdout.splitlines() if line.startswith("{")]
    return child.returncode, events, child.stderr


@needs_mount
def test_a_full_disk_refuses_the_write_and_tells_the_model_why(
    ollama: FakeOllama, workspace: Path, tmp_path: Path
) -> None:
    original = b"ligne importante\n" * (DOC_BYTES // 17)
    (workspace / "doc.txt").write_bytes(original)
    ollama.script(
        Reply.tool("write_file", {"path": "doc.txt", "content": "tout neuf\n"}),
        Reply.text("Je n'ai rien écrit : le disque est plein."),
    )
    home = tmp_path / "home"
    home.mkdir()
    argv = [PYTHON, "-m", "loki_desktop", *ask_args(ollama, workspace, "Réécris doc.txt")]
    code, events, stderr = run_on_tiny_disk(home, "1m", argv, tmp_path / "parts.txt")
    assert code == 0, stderr
    assert "Traceback" not in stderr
    (result,) = [e for e in events if e["type"] == "tool_result"]
    assert not result["ok"]
    assert result["summary"].startswith("doc.txt n'a pas été écrit")
    assert "plus de place sur le disque" in result["summary"]
    assert (workspace / "doc.txt").read_bytes() == original
    told = [m["content"] for m in ollama.chat_requests[1]["messages"] if m["role"] == "tool"]
    assert "NOT written" in told[0]
    assert "ENOSPC" in told[0]
    assert (tmp_path / "parts.txt").read_text() == ""  # no half-written blob left


@needs_mount
def test_write_without_undo_lets_the_person_write_anyway(
    ollama: FakeOllama, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "doc.txt").write_bytes(b"x" * DOC_BYTES)
    ollama.script(
        Reply.tool("write_file", {"path": "doc.txt", "content": "tout neuf\n"}),
        Reply.text("Écrit."),
    )
    home = tmp_path / "home"
    home.mkdir()
    args = ask_args(ollama, workspace, "Réécris doc.txt", "--write-without-undo")
    argv = [PYTHON, "-m", "loki_desktop", *args]
    code, events, stderr = run_on_tiny_disk(home, "1m", argv, tmp_path / "parts.txt")
    assert code == 0, stderr
    assert "Traceback" not in stderr
    (result,) = [e for e in events if e["type"] == "tool_result"]
    assert result["ok"]
    assert (workspace / "doc.txt").read_text() == "tout neuf\n"
    assert (tmp_path / "parts.txt").read_text() == ""


# The history's own check, run inside the namespace (the tmpfs goes with it): integrity, and
# every message of the earlier turns, as JSON on stdout.
_HISTORY_CHECK = """
import json, sqlite3, sys
from loki_desktop.persistence.history import History
db = sqlite3.connect(sys.argv[1])
integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
db.close()
history = History(sys.argv[1])
print(json.dumps({"integrity": integrity, "messages": [
    [m.role, m.content] for m in history.messages(sys.argv[2])]}))
"""


def _in_namespace(home: Path, size: str, script: str, env: dict[str, str]) -> str:
    """Run the shell `script` with `home` a fresh tmpfs of `size`; its stdout."""
    child = subprocess.run(
        ["unshare", "--mount", "sh", "-c", f'mount -t tmpfs -o size={size} tmpfs "$H" && {script}'],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**cli_env(home), "H": str(home), **env},
        timeout=180,
        check=False,
    )
    assert child.returncode == 0, child.stderr
    return child.stdout


@needs_mount
# how much room is left when the turn starts: full at opening, after the tool call, after
# its result, a few tokens into the answer, later in it (measured: the failing write moves)
@pytest.mark.parametrize("free_kb", [0, 96, 128, 160, 256, 400])
def test_a_full_disk_at_each_history_write_keeps_the_earlier_turns(
    ollama: FakeOllama, workspace: Path, tmp_path: Path, free_kb: int
) -> None:
    words = [f"mot{i} " for i in range(400)]
    ollama.script(
        Reply.text("Première réponse, gardée."),
        Reply.tool("write_file", {"path": "n.txt", "content": "x" * 3000}),
        Reply.text(*words),
    )
    home = tmp_path / "home"
    home.mkdir()
    first = " ".join([PYTHON, "-m", "loki_desktop", *ask_args(ollama, workspace, "Un")])
    second = (
        f"{PYTHON} -m loki_desktop ask Deux --json --host {ollama.url} --workspace {workspace} "
        '--session "$S"'
    )
    script = (
        f'S=$({first} | {PYTHON} -c "import json,sys; print(json.loads(sys.stdin.readlines()'
        "[-1])['session'])\") || exit 11; "
        'avail=$(df --output=avail -B1 "$H" | tail -1); '
        'fallocate -l $((avail - FREE)) "$H/filler" || exit 12; '
        f'{second} > "$OUT" 2> "$ERR"; echo $? > "$CODE"; '
        'rm "$H/filler"; '  # space freed, as the person would, then the history is read
        f'{PYTHON} -m loki_desktop undo --session "$S" > /dev/null 2>&1; '
        f'{PYTHON} -c "$CHECK" "$H/history.db" "$S"'
    )
    env = {
        "FREE": str(free_kb * 1024),
        "OUT": str(tmp_path / "out"),
        "ERR": str(tmp_path / "err"),
        "CODE": str(tmp_path / "code"),
        "CHECK": _HISTORY_CHECK,
    }
    checked = json.loads(_in_namespace(home, "2m", script, env).splitlines()[-1])
    stderr = (tmp_path / "err").read_text()
    assert "Traceback" not in stderr
    assert "Error" not in stderr  # no exception escaped, not even one Python only printed
    assert int((tmp_path / "code").read_text()) in (0, 1), stderr
    assert checked["integrity"] == "ok"
    assert checked["messages"][:2] == [
        ["user", "Un"],
        ["assistant", "Première réponse, gardée."],
    ]
    # the file the turn wrote was either refused (no checkpoint) or is undone now
    assert not (workspace / "n.txt").exists()


@needs_mount
def test_a_read_only_data_folder_changes_no_file_and_says_why(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    (workspace / "doc.txt").write_text("à garder\n")
    ollama.script(
        Reply.text("Bonjour."),
        Reply.tool("write_file", {"path": "doc.txt", "content": "perdu ?\n"}),
        Reply.text("Je n'ai rien pu écrire."),
    )
    first = ask_json(ollama, workspace, loki_home)
    assert first.code == 0, first.stderr
    session = first.events[-1]["session"]
    argv = [
        PYTHON,
        "-m",
        "loki_desktop",
        *ask_args(ollama, workspace, "Écris", "--session", session),
    ]
    script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && shift && exec "$@"'
    child = subprocess.run(
        ["unshare", "--mount", "sh", "-c", script, str(loki_home), "_", *argv],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=cli_env(loki_home),
        timeout=120,
        check=False,
    )
    assert "Traceback" not in child.stderr
    assert "Error" not in child.stderr
    assert child.returncode in (0, 1), child.stderr
    assert (workspace / "doc.txt").read_text() == "à garder\n"
    said = child.stderr + child.stdout
    assert "lecture seule" in said or "inaccessible" in said, said


def test_kill_9_during_a_checkpoint_write_leaves_no_part_and_the_file_undoable(
    ollama: FakeOllama, workspace: Path, loki_home: Path
) -> None:
    original = os.urandom(1 << 20) * 60  # 60 MB: its checkpoint takes a while to write
    (workspace / "big.bin").write_bytes(original)
    ollama.script(Reply.tool("write_file", {"path": "big.bin", "content": "petit"}))
    args = ask_args(ollama, workspace, "Remplace big.bin")
    kill_9_when(args, loki_home, lambda event: event["type"] == "tool_call")
    # the next start sweeps what the killed one left; then the way back is there
    undo = run_cli("undo", home=loki_home)
    assert "Traceback" not in undo.stderr
    assert not list((loki_home / "checkpoints" / "blobs").glob("*/.*.part"))
    assert (workspace / "big.bin").read_bytes() == original
