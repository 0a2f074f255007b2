"""`grep_search`'s search: a jailed walk that keeps to its time budget and stops when told.

The walk opens each folder from its parent's descriptor (O_NOFOLLOW) and each file from its
folder's, so it never leaves the workspace, even while the tree changes under it. The time
budget and the stop request are checked at every folder and every file, not once the whole
tree has been listed.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

# `regex`, not `re`: a search can be given a timeout, and it lets go of the GIL while it
# runs, so a pattern that backtracks without end cannot freeze the app
import regex

from loki_desktop.core.checks.tree import is_ignored_dir
from loki_desktop.core.tools.dirfd import LINK_ERRNOS, O_NONBLOCK, Dir
from loki_desktop.core.tools.jail import Entry, JailError, Workspace, is_forbidden_part, read_fd
from loki_desktop.core.tools.text import looks_binary

GREP_MAX_MATCHES = 200
GREP_MAX_FILE_BYTES = 2_000_000
GREP_TIME_BUDGET_S = 5.0
# Deeper than this is a tree made to exhaust descriptors, not a project.
MAX_DEPTH = 64


class PatternTooSlow(Exception):
    """The pattern ran out of the search's time on one line (catastrophic backtracking)."""

    def __init__(self, where: str) -> None:
        super().__init__(where)
        self.where = where


class _Stop(Exception):
    def __init__(self, note: str) -> None:
        super().__init__(note)
        self.note = note


@dataclass
class GrepResult:
    matches: list[str] = field(default_factory=list)
    note: str = ""
    skipped_big: list[str] = field(default_factory=list)  # files over the size limit
    single_file: bool = False


class Search:
    """One search. `stop` (a threading.Event) ends it from another thread (Stop, cancel)."""

    def __init__(
        self,
        workspace: Workspace,
        pattern: regex.Pattern[str],
        budget_s: float = GREP_TIME_BUDGET_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ws = workspace
        self.pattern = pattern
        self.budget_s = budget_s
        self.clock = clock
        self.stop = threading.Event()
        self.result = GrepResult()
        self._deadline = 0.0

    def run(self, raw: str) -> GrepResult:
        self._deadline = self.clock() + self.budget_s
        try:
            with self.ws.locate(raw) as entry:
                self._search_entry(raw, entry)
        except _Stop as stop:
            self.result.note = stop.note
        finally:
            self.ws.hook("done", raw)
        return self.result

    def _search_entry(self, raw: str, entry: Entry) -> None:
        if entry.name is None:
            self._walk(entry.folder, "" if entry.rel == "." else entry.rel, 0)
            return
        info = entry.folder.lstat(entry.name)
        if info is not None and stat.S_ISDIR(info.st_mode):
            with self.ws.open_folder(raw) as folder:
                self._walk(folder.folder, folder.rel, 0)
            return
        self.result.single_file = True
        self._search_file(entry.folder, entry.name, entry.rel)

    def _check(self) -> None:
        if self.stop.is_set():
            raise _Stop("\n[... search stopped ...]")
        if self.clock() > self._deadline:
            raise _Stop(f"\n[... search stopped after {self.budget_s:g} s: narrow the path ...]")

    def _walk(self, folder: Dir, rel: str, depth: int) -> None:
        self._check()
        self.ws.hook("list", rel or ".")
        entries = sorted(folder.entries(), key=lambda e: e.name)
        for item in entries:
            if item.kind in ("file", "link"):
                self._check()
                self._search_file(folder, item.name, f"{rel}/{item.name}" if rel else item.name)
        if depth >= MAX_DEPTH:
            return
        for item in entries:
            if item.kind != "dir" or is_ignored_dir(item.name) or is_forbidden_part(item.name):
                continue
            self._check()
            try:
                child = folder.child(item.name)
            except OSError:
                continue  # swapped for a link or a file meanwhile, or gone: not searched
            with child:
                self._walk(child, f"{rel}/{item.name}" if rel else item.name, depth + 1)

    def _search_file(self, folder: Dir, name: str, rel: str, follow: bool = True) -> None:
        if is_forbidden_part(name):
            return
        self.ws.hook("open", rel)
        try:
            fd = folder.open_file(name, os.O_RDONLY | O_NONBLOCK)
        except OSError as exc:
            if exc.errno in LINK_ERRNOS and follow:
                self._search_link(rel)
            return
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):  # a FIFO would block; a socket, a device
                return
            if info.st_size > GREP_MAX_FILE_BYTES:
                self.result.skipped_big.append(rel)
                return
            data = read_fd(fd, info.st_size, GREP_MAX_FILE_BYTES + 1).data
        except OSError:
            return
        finally:
            os.close(fd)
        self._search_text(data, rel)

    def _search_link(self, rel: str) -> None:
        """A link is searched only when it leads to a file inside the workspace."""
        try:
            with self.ws.locate(rel) as entry:
                if entry.name is not None:
                    self._search_file(entry.folder, entry.name, rel, follow=False)
        except (JailError, OSError):
            return

    def _search_text(self, data: bytes, rel: str) -> None:
        if looks_binary(data):
            return
        text = data.decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if self.stop.is_set():
                raise _Stop("\n[... search stopped ...]")
            remaining = self._deadline - self.clock()
            if remaining <= 0:
                self._check()
            try:
                found = self.pattern.search(line, timeout=remaining, concurrent=True)
            except TimeoutError:
                raise PatternTooSlow(f"{rel}:{number}") from None
            if found:
                self.result.matches.append(f"{rel}:{number}: {line.strip()[:300]}")
                if len(self.result.matches) >= GREP_MAX_MATCHES:
                    raise _Stop(f"\n[... stopped at {GREP_MAX_MATCHES} matches ...]")
