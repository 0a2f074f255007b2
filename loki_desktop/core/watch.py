"""Workspace watcher: re-checks files as they are saved (watchfiles).

The window's Problems panel uses it like this, on any asyncio loop (qasync in the app):

    watcher = WorkspaceWatcher(root, Checkers(), on_problems)
    await watcher.start()   # returns once every folder is watched (a few ms)
    ...
    await watcher.stop()    # when the workspace closes; idempotent

`on_problems(path, result)` is called on the loop's thread, with an absolute path:
a `CheckResult` after a changed checkable file was checked (`result.problems` empty
means clean: clear the file's problems), or None when the file was deleted, moved
away, or its folder was. It is called only when the result differs from the last one
given for that path, so saving a file unchanged costs no repaint. `watcher.results`
holds the latest result of every checked file.

What it watches: every folder of the workspace, found by walking it once, except
version control, dependencies, virtual environments, caches and build output
(core.checks.tree.IGNORED_DIRS), which are never entered, so a big node_modules costs
nothing. New folders (mkdir -p, a moved-in tree) are added as they appear. A burst of
saves is grouped (watchfiles waits for 50 ms of quiet, 400 ms at most), each file is
checked once per burst, and user changes go before the initial scan.

Initial scan: after start(), the `initial_scan` most recently modified checkable files
(50 by default) are checked in the background, so the panel shows the state of what
the user is working on without checking a 10,000-file repository from end to end.

Costs: one thread blocked in the Rust watcher, which wakes every 50 ms to see whether
it must stop (microseconds of CPU), and one inotify watch per folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import MappingProxyType

from watchfiles import Change

# documented ("Rust backend direct usage") but in a private module: the version is bounded and
# tests/core/test_watchfiles_contract.py pins what we use. Not the public `watch()`: it builds
# the watcher at its first next(), which then blocks, so start() could not know it is watching.
from watchfiles._rust_notify import RustNotify

from loki_desktop.core.checks import tree
from loki_desktop.core.checks.model import Checker, CheckResult
from loki_desktop.core.i18n import _

log = logging.getLogger(__name__)

ProblemsCallback = Callable[[Path, CheckResult | None], None]

INITIAL_SCAN_FILES = 50
STEP_MS = 50  # quiet time that ends a burst of changes
DEBOUNCE_MS = 400  # longest a burst is held back, so a save shows even amid constant churn
WORKERS = 2  # checks mostly wait on ruff or node: two at a time keep a small machine busy


class WorkspaceWatcher:
    """Watches one workspace folder and reports the check result of every saved file."""

    def __init__(
        self,
        root: Path,
        checker: Checker,
        on_problems: ProblemsCallback,
        *,
        initial_scan: int = INITIAL_SCAN_FILES,
        on_change: Callable[[Path], None] | None = None,
    ) -> None:
        self.root = Path(root).resolve()
        # told of every path that changed (the workspace's index reads it again)
        self._on_change = on_change
        self._checker = checker
        self._on_problems = on_problems
        self._initial_scan = initial_scan
        self._results: dict[Path, CheckResult] = {}
        self._dirs: set[str] = set()
        self._pending: dict[Path, None] = {}  # an ordered set: changed files, oldest first
        self._backlog: list[Path] = []  # the initial scan, checked when nothing is pending
        self._in_flight: set[Path] = set()
        self._new_dirs: list[Path] = []
        self._listener: _Listener | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._grow_task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._running = False

    @property
    def results(self) -> Mapping[Path, CheckResult]:
        return MappingProxyType(self._results)

    @property
    def watched_dirs(self) -> int:
        return len(self._dirs)

    async def start(self) -> None:
        if self._running:
            return
        self._running = True
        self._wake = asyncio.Event()
        try:
            if not self.root.is_dir():
                raise NotADirectoryError(_("{path} n'est pas un dossier").format(path=self.root))
            found = await asyncio.to_thread(tree.walk, self.root)  # folders only: fast
            self._dirs = set(found.dirs)
            self._listener = await self._listen()
        except BaseException:  # e.g. the system's limit of inotify watches: say so, stay stopped
            self._running = False
            raise
        self._tasks = [asyncio.create_task(self._work()) for _ in range(WORKERS)]
        if self._initial_scan > 0:
            self._tasks.append(asyncio.create_task(self._plan_initial_scan()))

    async def stop(self) -> None:
        if not self._running:
            return
        self._running = False
        self._wake.set()  # a worker whose cancel was swallowed sees `_running` and ends
        tasks = [*self._tasks, *([self._grow_task] if self._grow_task else [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks, self._grow_task = [], None
        if self._listener is not None:
            await self._listener.stop()
            self._listener = None

    async def __aenter__(self) -> WorkspaceWatcher:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # --- changes, from the listener thread to the loop -------------------------------

    async def _listen(self) -> _Listener:
        loop = asyncio.get_running_loop()

        def deliver(changes: set[tuple[int, str]]) -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed under us: nothing to do
                loop.call_soon_threadsafe(self._on_changes, changes)

        notify = await asyncio.to_thread(_notify_for, sorted(self._dirs))
        listener = _Listener(notify, deliver)
        listener.start()
        return listener

    def _on_changes(self, changes: Iterable[tuple[int, str]]) -> None:
        if not self._running:
            return
        for change, raw in sorted(changes, key=lambda item: item[1]):
            path = Path(raw)
            if self._is_ignored(path):
                continue
            if self._on_change is not None:
                self._on_change(path)
            if change == Change.deleted and raw in self._dirs:
                self._forget_tree(raw)
            elif change == Change.added and raw not in self._dirs and _is_real_dir(path):
                self._new_dirs.append(path)
            elif self._checker.can_check(path):
                self._queue(path)
        if self._new_dirs and (self._grow_task is None or self._grow_task.done()):
            self._grow_task = asyncio.create_task(self._grow())

    def _is_ignored(self, path: Path) -> bool:
        try:
            parts = path.relative_to(self.root).parts
        except ValueError:
            return True
        # a checkable file is never named like an ignored folder (they have no suffix)
        return any(tree.is_ignored_dir(part) for part in parts)

    def _forget_tree(self, raw: str) -> None:
        """A folder was deleted or moved away: its files' problems go with it."""
        prefix = raw + os.sep
        self._dirs = {d for d in self._dirs if d != raw and not d.startswith(prefix)}
        for path in [p for p in self._results if str(p).startswith(prefix)]:
            del self._results[path]
            self._notify(path, None)

    async def _grow(self) -> None:
        """Watch new folders. The new listener starts before the old one stops (no gap),
        and the new trees are walked again once watched, for what was saved meanwhile."""
        while self._new_dirs:
            tops, self._new_dirs = self._new_dirs, []
            while True:
                found = await asyncio.to_thread(_walk_all, tops, self._checker.can_check)
                unseen = set(found.dirs) - self._dirs
                if not unseen:
                    break
                self._dirs |= unseen
                old, self._listener = self._listener, await self._listen()
                if old is not None:
                    await old.stop()
            for _mtime, path in found.files:
                self._queue(path)

    # --- checks ------------------------------------------------------------------

    async def _plan_initial_scan(self) -> None:
        """Pick the most recently modified checkable files (a stat each: in the background)."""
        found = await asyncio.to_thread(tree.walk, self.root, self._checker.can_check)
        recent = sorted(found.files, key=lambda item: item[0], reverse=True)
        self._backlog = [path for _mtime, path in recent[: self._initial_scan]]
        self._backlog.reverse()  # popped from the end: the most recent first
        self._wake.set()

    def _queue(self, path: Path) -> None:
        self._pending.pop(path, None)
        self._pending[path] = None
        self._wake.set()

    def _next(self) -> Path | None:
        for path in self._pending:
            if path not in self._in_flight:  # it changed while being checked: after that
                del self._pending[path]
                return path
        while self._backlog:
            path = self._backlog.pop()
            if path not in self._in_flight and path not in self._results:
                return path
        return None

    async def _work(self) -> None:
        # `while self._running`, not `while True`: on Python 3.11 a cancel that lands as a
        # check's `wait_for` completes is swallowed (it returns the result), and the worker
        # would wait for work forever, holding stop() and the window's exit
        while self._running:
            path = self._next()
            if path is None:
                self._wake.clear()
                await self._wake.wait()
                continue
            self._in_flight.add(path)
            try:
                await self._check(path)
            except Exception:  # one bad file must not stop the watcher
                log.exception("checking %s failed", path)
            finally:
                self._in_flight.discard(path)
            if self._pending:
                self._wake.set()

    async def _check(self, path: Path) -> None:
        if not await asyncio.to_thread(path.is_file):
            if self._results.pop(path, None) is not None:
                self._notify(path, None)
            return
        result = await self._checker.check(path, self.root)
        if result.unreadable:  # gone between the event and the read
            if self._results.pop(path, None) is not None:
                self._notify(path, None)
            return
        if self._results.get(path) != result:
            self._results[path] = result
            self._notify(path, result)

    def _notify(self, path: Path, result: CheckResult | None) -> None:
        try:
            self._on_problems(path, result)
        except Exception:  # the panel's bug must not stop the watcher
            log.exception("on_problems failed for %s", path)


class _Listener:
    """One Rust watcher over a fixed list of folders, drained by a thread of its own."""

    def __init__(self, notify: RustNotify, deliver: Callable[[set[tuple[int, str]]], None]):
        self._notify = notify
        self._deliver = deliver
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="loki-watch", daemon=True)

    def start(self) -> None:
        self._thread.start()

    async def stop(self) -> None:
        self._stop.set()  # seen within STEP_MS
        await asyncio.to_thread(self._thread.join)

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                # timeout 0: block until a change or the stop event, never wake for nothing
                changes = self._notify.watch(DEBOUNCE_MS, STEP_MS, 0, self._stop)
                if isinstance(changes, set):
                    self._deliver(changes)
                elif changes == "stop":
                    break
        except Exception:
            log.exception("the workspace watcher stopped")
        finally:
            self._notify.close()


def _notify_for(dirs: list[str]) -> RustNotify:
    """Watch each folder on its own (not recursively: ignored folders stay unwatched).
    A folder may vanish between the walk and the watch: drop it and try again."""
    for _attempt in range(5):
        existing = [d for d in dirs if os.path.isdir(d)]
        try:
            return RustNotify(existing, False, False, 300, False, True)
        except FileNotFoundError:
            dirs = existing
    return RustNotify([d for d in dirs if os.path.isdir(d)], False, False, 300, False, True)


def _walk_all(tops: list[Path], can_check: Callable[[Path], bool]) -> tree.Tree:
    found = tree.Tree()
    for top in tops:
        if _is_real_dir(top):
            part = tree.walk(top, can_check)
            found.dirs += part.dirs
            found.files += part.files
    return found


def _is_real_dir(path: Path) -> bool:
    """A folder, and not a symbolic link to one (those are never followed)."""
    return path.is_dir() and not path.is_symlink()
