"""The workspace watcher on real files: saves are checked, fixes and deletions clear them."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from loki_desktop.core.checks.model import CheckResult
from loki_desktop.core.checks.registry import Checkers
from loki_desktop.core.watch import WorkspaceWatcher

BROKEN_PY = "def f():\n    return missing_name\n"
CLEAN_PY = "def f():\n    return 1\n"
DEADLINE_S = 30.0  # generous: a lost event would wait forever, a loaded machine not that long


class Updates:
    """What the watcher told the panel, in order, as an awaitable queue."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.queue: asyncio.Queue[tuple[str, CheckResult | None]] = asyncio.Queue()
        self.seen: list[tuple[str, CheckResult | None]] = []

    def __call__(self, path: Path, result: CheckResult | None) -> None:
        assert path.is_absolute()
        update = (path.relative_to(self.root).as_posix(), result)
        self.seen.append(update)
        self.queue.put_nowait(update)

    async def next(self, deadline: float = DEADLINE_S) -> tuple[str, CheckResult | None]:
        return await asyncio.wait_for(self.queue.get(), deadline)

    async def for_file(self, name: str, deadline: float = DEADLINE_S) -> CheckResult | None:
        """The next update about `name` (updates about other files are skipped)."""
        async with asyncio.timeout(deadline):
            while True:
                path, result = await self.queue.get()
                if path == name:
                    return result


@pytest.fixture
async def watched(workspace: Path) -> AsyncIterator[tuple[WorkspaceWatcher, Updates]]:
    updates = Updates(workspace.resolve())
    watcher = WorkspaceWatcher(workspace, Checkers(), updates, initial_scan=0)
    await watcher.start()
    yield watcher, updates
    await watcher.stop()


def messages(result: CheckResult | None) -> list[str]:
    assert result is not None
    return [problem.message for problem in result.problems]


async def test_a_broken_save_is_reported_and_a_fix_clears_it(
    watched: tuple[WorkspaceWatcher, Updates], workspace: Path
) -> None:
    # (how fast: `make bench` measures the save-to-report latency against its budget)
    watcher, updates = watched
    path = workspace / "app.py"

    path.write_text(BROKEN_PY)
    result = await updates.for_file("app.py")
    assert messages(result) == ["F821 Undefined name `missing_name`"]

    path.write_text(CLEAN_PY)
    assert messages(await updates.for_file("app.py")) == []
    assert watcher.results[path.resolve()].ok


@pytest.mark.usefixtures("english")
async def test_an_atomic_save_is_seen(
    watched: tuple[WorkspaceWatcher, Updates], workspace: Path
) -> None:
    _watcher, updates = watched
    temporary = workspace / ".config.json.tmp"
    temporary.write_text('{"a": 1,}')

    os.replace(temporary, workspace / "config.json")

    assert messages(await updates.for_file("config.json")) == [
        "invalid JSON: Expecting property name enclosed in double quotes"
    ]


async def test_deleting_a_file_clears_its_problems(
    watched: tuple[WorkspaceWatcher, Updates], workspace: Path
) -> None:
    watcher, updates = watched
    path = workspace / "broken.toml"
    path.write_text("a = \n")
    assert messages(await updates.for_file("broken.toml"))

    path.unlink()

    assert await updates.for_file("broken.toml") is None
    assert path.resolve() not in watcher.results


async def test_new_nested_folders_are_watched(
    watched: tuple[WorkspaceWatcher, Updates], workspace: Path
) -> None:
    watcher, updates = watched
    deep = workspace / "src" / "pkg" / "sub"
    deep.mkdir(parents=True)
    (deep / "first.py").write_text(BROKEN_PY)  # may land before the folder is watched

    assert messages(await updates.for_file("src/pkg/sub/first.py"))
    (deep / "later.js").write_text("const a = ;\n")  # lands after: a plain event
    if shutil.which("node"):
        assert messages(await updates.for_file("src/pkg/sub/later.js")) == [
            "SyntaxError: Unexpected token ';'"
        ]
    assert watcher.watched_dirs == 4


async def test_a_tree_moved_in_is_checked_and_a_folder_removed_is_cleared(
    watched: tuple[WorkspaceWatcher, Updates], workspace: Path, tmp_path: Path
) -> None:
    _watcher, updates = watched
    outside = tmp_path / "elsewhere" / "lib"
    outside.mkdir(parents=True)
    (outside / "data.json").write_text("[1, 2,]")

    os.rename(outside, workspace / "lib")
    assert messages(await updates.for_file("lib/data.json"))

    shutil.rmtree(workspace / "lib")
    assert await updates.for_file("lib/data.json") is None


async def test_ignored_folders_are_neither_watched_nor_reported(workspace: Path) -> None:
    for name in ("node_modules/pkg", ".git/hooks", ".venv/lib", "build", "x.egg-info"):
        (workspace / name).mkdir(parents=True)
    (workspace / "src").mkdir()
    updates = Updates(workspace.resolve())
    async with WorkspaceWatcher(workspace, Checkers(), updates, initial_scan=0) as watcher:
        assert watcher.watched_dirs == 2  # the root and src

        for name in ("node_modules/pkg/x.py", ".git/hooks/x.py", ".venv/lib/x.py", "build/x.py"):
            (workspace / name).write_text(BROKEN_PY)
        (workspace / "__pycache__").mkdir()
        (workspace / "__pycache__" / "x.py").write_text(BROKEN_PY)
        (workspace / "src" / "sentinel.py").write_text(BROKEN_PY)

        assert await updates.next() == ("src/sentinel.py", updates.seen[0][1])
        # A save after all of them, of the same kind: reported after anything they caused
        (workspace / "src" / "later.py").write_text(BROKEN_PY)
        assert await updates.for_file("src/later.py")
        assert [path for path, _result in updates.seen] == ["src/sentinel.py", "src/later.py"]


async def test_a_burst_of_saves_is_checked_once_with_the_final_content(
    watched: tuple[WorkspaceWatcher, Updates], workspace: Path
) -> None:
    _watcher, updates = watched
    path = workspace / "burst.py"

    for index in range(30):
        path.write_text(f"value = {index}\n" + ("broken = (\n" if index == 29 else ""))

    assert messages(await updates.for_file("burst.py")) == ["SyntaxError: '(' was never closed"]
    # a later save of another file: any late report of the burst would come before it
    (workspace / "after.py").write_text(BROKEN_PY)
    assert await updates.for_file("after.py")
    burst = [result for path, result in updates.seen if path == "burst.py"]
    assert len(burst) <= 2  # grouped, not thirty checks
    assert messages(burst[-1]) == ["SyntaxError: '(' was never closed"]  # the final content


async def test_the_initial_scan_checks_existing_files_most_recent_first(workspace: Path) -> None:
    for index in range(3):
        path = workspace / f"old{index}.py"
        path.write_text(BROKEN_PY)
        os.utime(path, (1_000_000 + index, 1_000_000 + index))
    (workspace / "recent.json").write_text("{")
    updates = Updates(workspace.resolve())

    async with WorkspaceWatcher(workspace, Checkers(), updates, initial_scan=2):
        first = await updates.next()
        second = await updates.next()
        # a file of the same kind saved after both: a third scanned file (old1.py, next in
        # line and started as soon as a worker was free) would be reported before it
        (workspace / "later.py").write_text(BROKEN_PY)
        assert await updates.for_file("later.py")

    assert {first[0], second[0]} == {"recent.json", "old2.py"}
    assert [path for path, _result in updates.seen[2:]] == ["later.py"]


async def test_stopping_ends_the_thread_and_the_reports(workspace: Path) -> None:
    updates = Updates(workspace.resolve())
    watcher = WorkspaceWatcher(workspace, Checkers(), updates, initial_scan=0)
    await watcher.start()
    assert "loki-watch" in [thread.name for thread in threading.enumerate()]

    await watcher.stop()
    await watcher.stop()  # idempotent
    assert "loki-watch" not in [thread.name for thread in threading.enumerate()]
    (workspace / "stopped.py").write_text(BROKEN_PY)  # saved while stopped: never reported

    await watcher.start()  # a workspace reopened
    (workspace / "after.py").write_text(BROKEN_PY)
    assert messages(await updates.for_file("after.py"))
    await watcher.stop()
    # the save while stopped would have been reported before the later one
    assert [path for path, _result in updates.seen] == ["after.py"]


async def test_a_failing_callback_does_not_stop_the_watcher(
    workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    first_seen = asyncio.Event()
    second_seen = asyncio.Event()

    def flaky(path: Path, result: CheckResult | None) -> None:
        if path.name == "first.json":
            first_seen.set()
            raise RuntimeError("panel bug")
        second_seen.set()

    async with WorkspaceWatcher(workspace, Checkers(), flaky, initial_scan=0):
        (workspace / "first.json").write_text("{")
        await asyncio.wait_for(first_seen.wait(), DEADLINE_S)  # checked, the callback raised
        (workspace / "second.json").write_text("{")
        await asyncio.wait_for(second_seen.wait(), DEADLINE_S)

    assert "on_problems failed for" in caplog.text


def test_it_runs_on_the_qt_event_loop(workspace: Path, qapp: object) -> None:
    import qasync

    # pytest-qt's application (a QApplication, shared by the whole run), as the window has
    loop = qasync.QEventLoop(qapp)

    async def scenario() -> list[str]:
        updates = Updates(workspace.resolve())
        async with WorkspaceWatcher(workspace, Checkers(), updates, initial_scan=0):
            (workspace / "qt.py").write_text(BROKEN_PY)
            return messages(await updates.for_file("qt.py"))

    try:
        assert loop.run_until_complete(scenario()) == ["F821 Undefined name `missing_name`"]
    finally:
        loop.close()


async def test_a_missing_workspace_is_refused_and_the_watcher_stays_stopped(
    tmp_path: Path,
) -> None:
    watcher = WorkspaceWatcher(tmp_path / "gone", Checkers(), Updates(tmp_path))

    with pytest.raises(NotADirectoryError):
        await watcher.start()
    await watcher.stop()  # nothing to stop, no error


@pytest.mark.parametrize(
    ("name", "broken", "message"),
    [
        ("src/app.ts", "enum E { A = 1 B = 2 }\n", "erreur de syntaxe"),
        ("src/App.tsx", "export const A = () => <p></b>;\n", "</b> ferme <p>"),
        ("site.css", ".a {\n  color red;\n}\n", "il manque « : »"),
        ("ci.yml", "on: push\non: pull_request\n", "clé « on » en double"),
        ("run.sh", "#!/bin/bash\nif true; then\n  echo\n", "erreur de syntaxe (bash -n)"),
    ],
)
async def test_the_new_kinds_are_checked_on_save(
    watched: tuple[WorkspaceWatcher, Updates], workspace: Path, name: str, broken: str, message: str
) -> None:
    _watcher, updates = watched
    path = workspace / name
    path.parent.mkdir(parents=True, exist_ok=True)

    path.write_text(broken)

    found = messages(await updates.for_file(name))
    assert any(message in text for text in found), found


class CancelSwallowingChecker:
    """A check that returns normally when cancelled mid-way, as Python 3.11's wait_for does
    when the cancel lands as its inner call completes."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()

    def can_check(self, path: Path) -> bool:
        return path.suffix == ".py"

    async def check(self, path: Path, root: Path | None = None) -> CheckResult:
        self.entered.set()
        with contextlib.suppress(asyncio.CancelledError):  # swallowed
            await asyncio.sleep(60)
        return CheckResult()


async def test_stop_ends_even_when_a_check_swallows_the_cancel(workspace: Path) -> None:
    checker = CancelSwallowingChecker()
    watcher = WorkspaceWatcher(workspace, checker, Updates(workspace), initial_scan=0)
    await watcher.start()
    (workspace / "a.py").write_text(CLEAN_PY)
    await asyncio.wait_for(checker.entered.wait(), DEADLINE_S)
    stopping = asyncio.ensure_future(watcher.stop())
    done, _pending = await asyncio.wait({stopping}, timeout=DEADLINE_S)
    assert stopping in done, "stop() waits forever for a worker whose cancel was swallowed"
    stopping.result()
