"""No debris, no misleading answers: stale temporary files go when a workspace opens; grep says
it skipped a file too big; read_file counts the file's lines; grep keeps to its budget and
stops when the turn does."""

from __future__ import annotations

import asyncio
import fcntl
import os
import threading
from pathlib import Path

import regex

from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.tools.debris import sweep, sweep_once
from loki_desktop.core.tools.grep import GREP_MAX_FILE_BYTES, Search
from loki_desktop.core.tools.jail import Workspace
from loki_desktop.core.tools.native import NativeTools
from loki_desktop.core.tools.toolbox import Toolbox


def _box(root: Path) -> Toolbox:
    return Toolbox([NativeTools(Workspace(root), FixedApprover(False))])


def test_stale_temporary_files_are_removed_and_live_ones_kept(workspace: Path) -> None:
    (workspace / "src").mkdir()
    stale = workspace / "src" / ".big.txt.k3j9_x0a.tmp"  # left by a write killed midway
    stale.write_bytes(b"x" * 100_000)
    live = workspace / ".other.txt.abcdefgh.tmp"  # a write in progress holds its lock
    live.write_bytes(b"y")
    mine = workspace / ".notes.tmp"  # not our naming: the user's own file
    mine.write_text("keep")
    vendored = workspace / "node_modules" / ".pkg.json.abcdefgh.tmp"  # not walked
    vendored.parent.mkdir()
    vendored.write_text("z")
    with open(live, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        removed = sweep(Workspace(workspace))
    assert removed == ["src/.big.txt.k3j9_x0a.tmp"]
    assert not stale.exists()
    assert [p.exists() for p in (live, mine, vendored)] == [True, True, True]


async def test_the_sweep_runs_once_when_the_workspace_is_first_used(workspace: Path) -> None:
    stale = workspace / ".a.txt.abcdefgh.tmp"
    stale.write_text("debris")
    tools = NativeTools(Workspace(workspace), FixedApprover(False))
    await tools.prepare()  # the sweep runs in the background: the turn does not wait for it
    for _ in range(1200):
        if not stale.exists():
            break
        await asyncio.sleep(0.05)
    assert not stale.exists()
    stale.write_text("debris again")
    assert sweep_once(Workspace(workspace)) is None  # once per folder and process


async def test_a_sweep_between_creating_and_locking_a_temporary_file_loses_no_write(
    workspace: Path,
) -> None:
    """The eval oracle's flake under load: the sweep of a workspace just opened runs in its
    own thread; caught between a write creating its temporary file and locking it, it took
    the file for debris and removed it, and the write failed (the fix never landed)."""
    (workspace / "somme.py").write_text("def somme_jusqua(n):\n    return sum(range(n))\n")
    fixed = "def somme_jusqua(n):\n    return sum(range(n + 1))\n"
    swept: list[str] = []

    def sweep_at_creation(step: str, _rel: str) -> None:
        if step == "temp" and not swept:
            swept.extend(sweep(jail))

    jail = Workspace(workspace, hook=sweep_at_creation)
    box = Toolbox([NativeTools(jail, FixedApprover(False))])
    outcome = await box.call("write_file", {"path": "somme.py", "content": fixed})
    assert [name.startswith(".somme.py.") for name in swept] == [True]  # the race happened
    assert outcome.ok, outcome.output
    assert (workspace / "somme.py").read_text() == fixed
    assert sorted(os.listdir(workspace)) == ["somme.py"]


async def test_a_write_leaves_no_temporary_file_and_keeps_none_locked(workspace: Path) -> None:
    outcome = await _box(workspace).call("write_file", {"path": "a.txt", "content": "A"})
    assert outcome.ok
    assert sorted(os.listdir(workspace)) == ["a.txt"]


async def test_grep_on_one_file_over_the_limit_says_it_skipped_it(workspace: Path) -> None:
    (workspace / "huge.log").write_bytes(b"needle\n" * (GREP_MAX_FILE_BYTES // 7 + 10))
    outcome = await _box(workspace).call("grep_search", {"pattern": "needle", "path": "huge.log"})
    assert not outcome.ok
    assert "huge.log was not searched" in outcome.output
    assert "No match" not in outcome.output
    (workspace / "small.txt").write_text("needle\n")
    outcome = await _box(workspace).call("grep_search", {"pattern": "needle"})
    assert outcome.output.splitlines()[0] == "small.txt:1: needle"
    assert "1 file(s) over 2 MB not searched: huge.log" in outcome.output


async def test_read_file_counts_the_lines_of_the_whole_file(workspace: Path) -> None:
    (workspace / "long.txt").write_text("ligne\n" * 300_000)  # 1.8 MB: read in part
    (workspace / "short.txt").write_text("a\nb")  # no newline at the end
    box = _box(workspace)
    outcome = await box.call("read_file", {"path": "long.txt"})
    assert outcome.summary == "long.txt : 300000 lignes"
    assert "file cut" in outcome.output or "output cut" in outcome.output
    assert (await box.call("read_file", {"path": "short.txt"})).summary == "short.txt : 2 lignes"


def _tree(root: Path, folders: int, files: int) -> None:
    for number in range(folders):
        folder = root / f"d{number:03}"
        folder.mkdir()
        for index in range(files):
            (folder / f"f{index}.txt").write_text("nothing here\n")


def test_grep_checks_its_deadline_while_walking(workspace: Path) -> None:
    """The clock runs out after the first folder: the walk stops there, not after listing
    the whole tree."""
    _tree(workspace, 50, 2)
    listed: list[str] = []
    ticks = iter(range(1_000_000))
    jail = Workspace(workspace, hook=lambda step, rel: listed.append(rel) if step == "list" else 0)
    # one tick per look at the clock; the budget is 5 ticks
    search = Search(jail, regex.compile("absent"), budget_s=5, clock=lambda: next(ticks))
    result = search.run(".")
    assert "search stopped after" in result.note
    assert len(listed) < 5, listed


async def test_stop_ends_the_grep_worker_thread(workspace: Path) -> None:
    """Cancelled (the Stop button) while it walks: its thread ends at its next step."""
    _tree(workspace, 200, 5)
    started, release, done = threading.Event(), threading.Event(), threading.Event()
    opened: list[str] = []

    def hook(step: str, rel: str) -> None:
        if step == "done":
            done.set()
        if step == "open":
            opened.append(rel)
            if len(opened) == 1:
                started.set()
                release.wait(60)  # holds the worker until the turn is cancelled

    tools = NativeTools(Workspace(workspace, hook=hook), FixedApprover(False))
    call = asyncio.create_task(tools.call("grep_search", {"pattern": "absent"}))
    assert await asyncio.to_thread(started.wait, 60)
    call.cancel()
    await asyncio.gather(call, return_exceptions=True)
    release.set()
    assert await asyncio.to_thread(done.wait, 60)
    assert len(opened) == 1, f"{len(opened)} files opened after Stop"
