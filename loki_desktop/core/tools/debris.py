"""Stale temporary files of our own writes (`.name.<random>.tmp`), removed when a workspace opens.

A write killed midway (kill -9, a power cut) leaves its temporary file. A live write holds
a lock on its temporary file (dirfd.write_atomically), so a file we can lock is one nobody
is writing any more: it is removed. The sweep walks like grep (jailed, ignored folders
skipped) and is bounded, so a huge tree cannot hold it up.
"""

from __future__ import annotations

import logging
import os
import stat
import threading

try:
    import fcntl
except ImportError:  # Windows: an open file cannot be deleted there anyway
    fcntl = None  # type: ignore[assignment]  # a module or nothing, tested where used

from loki_desktop.core.checks.tree import is_ignored_dir
from loki_desktop.core.tools.dirfd import TEMP_NAME, Dir
from loki_desktop.core.tools.jail import Workspace, is_forbidden_part

log = logging.getLogger(__name__)

MAX_ENTRIES = 200_000
MAX_DEPTH = 64

_swept: set[str] = set()
_swept_lock = threading.Lock()


def sweep_once(workspace: Workspace) -> threading.Thread | None:
    """Sweep `workspace` in a background thread, once per folder and process."""
    key = str(workspace.root)
    with _swept_lock:
        if key in _swept:
            return None
        _swept.add(key)
    thread = threading.Thread(target=sweep, args=(workspace,), name="loki-temp-sweep", daemon=True)
    thread.start()
    return thread


def sweep(workspace: Workspace) -> list[str]:
    """Remove the stale temporary files; returns their workspace-relative paths."""
    removed: list[str] = []
    budget = [MAX_ENTRIES]
    try:
        with workspace.open_folder(".") as root:
            _sweep_folder(root.folder, "", 0, budget, removed)
    except OSError as exc:
        log.info("temporary files not swept: %s", exc)
    return removed


def _sweep_folder(folder: Dir, rel: str, depth: int, budget: list[int], removed: list[str]) -> None:
    try:
        entries = folder.entries()
    except OSError:
        return
    budget[0] -= len(entries)
    if budget[0] < 0:
        return
    for item in entries:
        path = f"{rel}/{item.name}" if rel else item.name
        if item.kind == "file" and TEMP_NAME.match(item.name):
            if _remove_if_stale(folder, item.name):
                removed.append(path)
        elif item.kind == "dir" and depth < MAX_DEPTH:
            if is_ignored_dir(item.name) or is_forbidden_part(item.name):
                continue
            try:
                child = folder.child(item.name)
            except OSError:
                continue
            with child:
                _sweep_folder(child, path, depth + 1, budget, removed)


def _remove_if_stale(folder: Dir, name: str) -> bool:
    try:
        fd = folder.open_file(name, os.O_RDONLY)
    except OSError:
        return False
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return False
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return False  # a write in progress holds it
        now = folder.lstat(name)
        if now is None or (now.st_dev, now.st_ino) != (info.st_dev, info.st_ino):
            return False  # renamed into place or replaced meanwhile
        folder.unlink(name)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
