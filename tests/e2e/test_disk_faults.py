"""A full disk under Loki's data folder: no file is changed without its way back.

Tests run as root, so permission bits prove nothing: the data folder is a tiny tmpfs mounted
in a private mount namespace (`unshare --mount`), where the disk really is full.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import PYTHON, REPO, cli_env
from tests.e2e.cli_runner import ask_args
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
