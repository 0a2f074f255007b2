"""One turn at a time per conversation, across processes: an OS lock file per conversation.

`<history.db>-turns/<hash of the id>` is locked (flock, or msvcrt.locking on Windows) while a
turn runs, with the holder's pid inside for a person looking at the folder. The system drops
the lock however its holder ends (kill -9 included), so a dead owner never blocks a
conversation and no heartbeat is needed. The file is removed at release.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import weakref
from pathlib import Path


class ConversationTurnLock:
    """A held turn lock (core.ports.TurnLock); also released if dropped without release()."""

    def __init__(self, fd: int | None, path: Path) -> None:
        self._finalizer = weakref.finalize(self, _release, fd, path) if fd is not None else None

    def release(self) -> None:
        if self._finalizer is not None:
            self._finalizer()


def lock_turn(history_path: Path, conversation_id: str) -> ConversationTurnLock | None:
    """The conversation's turn lock, or None while another turn (here or in another
    process) holds it. Where no lock file can be made, a lock that holds nothing."""
    folder = history_path.with_name(history_path.name + "-turns")
    path = folder / hashlib.sha256(conversation_id.encode("utf-8")).hexdigest()[:24]
    try:
        folder.mkdir(exist_ok=True)
    except OSError:
        return ConversationTurnLock(None, path)
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return ConversationTurnLock(None, path)
        if not try_lock(fd):
            os.close(fd)
            return None
        if _still_named(fd, path):
            break
        # its holder released and removed it between our open and our lock: try anew
        os.close(fd)
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
    return ConversationTurnLock(fd, path)


def try_lock(fd: int) -> bool:
    """Lock the file without waiting; False when another process (or descriptor) holds it.
    The system drops the lock when the descriptor closes or the process ends, however."""
    try:
        if sys.platform == "win32":
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _release(fd: int, path: Path) -> None:
    """Remove the lock file, then drop the lock: a turn waiting on this file then sees it is
    gone (`_still_named`) and takes a fresh one, so two turns never both hold the lock."""
    if sys.platform != "win32":  # Windows cannot remove an open file: it stays, empty
        with contextlib.suppress(OSError):
            path.unlink()
    os.close(fd)


def _still_named(fd: int, path: Path) -> bool:
    """The locked descriptor is still the file at `path` (not one removed meanwhile)."""
    if sys.platform == "win32":
        return True
    try:
        named, held = os.stat(path), os.fstat(fd)
    except OSError:
        return False
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)
