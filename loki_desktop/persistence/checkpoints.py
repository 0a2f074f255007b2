"""The checkpoint store: blobs named by their sha256 in a folder, an SQLite index of turns.

checkpoints/
  index.db         which turn of which conversation changed which file (WAL)
  blobs/ab/abcd…   each content once, whatever the number of turns that point at it

A blob is written (temporary file, then rename) before the index names it, so a crash
leaves at worst a blob nobody points at. Blobs no row points at are removed when turns are
dropped (eviction, a deleted conversation).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from loki_desktop.core.i18n import _
from loki_desktop.core.ports import FileCheckpoint, StoreUnavailable, TurnCheckpoint
from loki_desktop.persistence.aside import move_aside

SCHEMA = """
CREATE TABLE IF NOT EXISTS turns (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT NOT NULL,
    turn INTEGER NOT NULL,
    workspace TEXT NOT NULL,
    created_at REAL NOT NULL,
    UNIQUE (conversation_id, turn)
);
CREATE TABLE IF NOT EXISTS files (
    turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    before TEXT,
    after TEXT,
    restored INTEGER NOT NULL DEFAULT 0,
    call_id TEXT,
    seq INTEGER NOT NULL,
    PRIMARY KEY (turn_id, path)
);
CREATE TABLE IF NOT EXISTS blobs (
    digest TEXT PRIMARY KEY,
    size INTEGER NOT NULL
);
"""
BUSY_TIMEOUT_S = 5.0


def sweep_partial_blobs(blobs: Path) -> int:
    """Remove the `.part` files a process killed while writing a blob left (none is being
    written by a live process: their names carry the pid of the writer). Returns how many."""
    removed = 0
    for partial in blobs.glob("*/.*.part"):
        pid = partial.name.rsplit(".", 3)[-3] if partial.name.count(".") >= 3 else ""
        if pid.isdigit() and _alive(int(pid)):
            continue  # a live Loki may be writing it now
        with contextlib.suppress(OSError):
            partial.unlink()
            removed += 1
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class CheckpointFolder:
    """CheckpointStore over a folder (core.ports); one lock makes it safe across threads."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.blobs = self.folder / "blobs"
        self.blobs.mkdir(parents=True, exist_ok=True)
        self.index = self.folder / "index.db"
        self.notices: list[str] = []
        sweep_partial_blobs(self.blobs)
        self._lock = threading.RLock()
        try:
            self._db = self._open()
        except sqlite3.OperationalError as exc:
            raise StoreUnavailable(
                _("Les points de restauration ({path}) sont inaccessibles ({error}).").format(
                    path=self.index, error=exc
                )
            ) from exc
        except sqlite3.DatabaseError as exc:
            kept = move_aside(self.index, companions=("-wal", "-shm"))
            self.notices.append(
                _(
                    "L'index des points de restauration était illisible ({error}) : il a été "
                    "mis de côté dans {name} ; les tours passés ne peuvent plus être annulés."
                ).format(error=exc, name=kept.name)
            )
            self._db = self._open()

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(
            self.index, isolation_level=None, timeout=BUSY_TIMEOUT_S, check_same_thread=False
        )
        try:
            db.row_factory = sqlite3.Row
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA foreign_keys=ON")
            db.executescript(SCHEMA)
        except BaseException:
            db.close()
            raise
        return db

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def take_notices(self) -> list[str]:
        notices, self.notices = self.notices, []
        return notices

    # --- blobs ---------------------------------------------------------------------------

    def _blob_path(self, digest: str) -> Path:
        name = Path(digest).name  # a digest is hex: never let one climb out of the folder
        return self.blobs / name[:2] / name

    def put_blob(self, digest: str, data: bytes) -> None:
        with self._lock:
            known = self._db.execute("SELECT 1 FROM blobs WHERE digest = ?", (digest,)).fetchone()
            path = self._blob_path(digest)
            if known is not None and path.exists():
                return
            path.parent.mkdir(exist_ok=True)
            partial = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.part")
            try:
                partial.write_bytes(data)
                os.replace(partial, path)
            except BaseException:
                # a full disk (or a kill) midway: no half blob stays behind
                with contextlib.suppress(OSError):
                    partial.unlink()
                raise
            self._db.execute(
                "INSERT OR REPLACE INTO blobs (digest, size) VALUES (?, ?)", (digest, len(data))
            )

    def read_blob(self, digest: str) -> bytes:
        return self._blob_path(digest).read_bytes()

    # --- the index -----------------------------------------------------------------------

    def record_before(
        self,
        conversation_id: str,
        turn: int,
        workspace: str,
        path: str,
        before: str | None,
        call_id: str | None,
        *,
        after: str | None,
    ) -> None:
        with self._lock, self._transaction():
            self._db.execute(
                "INSERT OR IGNORE INTO turns (conversation_id, turn, workspace, created_at)"
                " VALUES (?, ?, ?, ?)",
                (conversation_id, turn, workspace, time.time()),
            )
            turn_id = self._turn_id(conversation_id, turn)
            seq = self._db.execute(
                "SELECT COUNT(*) FROM files WHERE turn_id = ?", (turn_id,)
            ).fetchone()[0]
            # the first state of a turn counts: a later write of the same file leaves it
            self._db.execute(
                "INSERT OR IGNORE INTO files (turn_id, path, before, after, call_id, seq)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (turn_id, path, before, after, call_id, seq),
            )
            self._db.execute(
                "UPDATE files SET after = ?, restored = 0 WHERE turn_id = ? AND path = ?",
                (after, turn_id, path),
            )

    def record_after(self, conversation_id: str, turn: int, path: str, after: str | None) -> None:
        with self._lock:
            self._db.execute(
                "UPDATE files SET after = ?, restored = 0 WHERE path = ? AND turn_id ="
                " (SELECT id FROM turns WHERE conversation_id = ? AND turn = ?)",
                (after, path, conversation_id, turn),
            )

    def set_restored(self, conversation_id: str, turn: int, path: str, restored: bool) -> None:
        with self._lock:
            self._db.execute(
                "UPDATE files SET restored = ? WHERE path = ? AND turn_id ="
                " (SELECT id FROM turns WHERE conversation_id = ? AND turn = ?)",
                (int(restored), path, conversation_id, turn),
            )

    def turns(self, conversation_id: str) -> list[TurnCheckpoint]:
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM turns WHERE conversation_id = ? ORDER BY turn", (conversation_id,)
            ).fetchall()
            return [self._turn(row) for row in rows]

    def _turn(self, row: sqlite3.Row) -> TurnCheckpoint:
        files = tuple(
            FileCheckpoint(
                path=f["path"],
                before=f["before"],
                after=f["after"],
                restored=bool(f["restored"]),
                call_id=f["call_id"],
            )
            for f in self._db.execute(
                "SELECT * FROM files WHERE turn_id = ? ORDER BY seq", (row["id"],)
            )
        )
        return TurnCheckpoint(
            conversation_id=row["conversation_id"],
            turn=row["turn"],
            workspace=row["workspace"],
            created_at=row["created_at"],
            files=files,
        )

    def latest_conversation(self) -> str | None:
        with self._lock:
            row = self._db.execute(
                "SELECT conversation_id FROM turns ORDER BY created_at DESC, id DESC LIMIT 1"
            ).fetchone()
            return None if row is None else str(row["conversation_id"])

    def delete_conversation(self, conversation_id: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM turns WHERE conversation_id = ?", (conversation_id,))
            self._collect()

    def evict(self, budget_bytes: int, keep: tuple[str, int] | None) -> list[tuple[str, int]]:
        dropped: list[tuple[str, int]] = []
        with self._lock:
            while self._used() > budget_bytes:
                oldest = self._db.execute(
                    "SELECT id, conversation_id, turn FROM turns"
                    " WHERE NOT (conversation_id = ? AND turn = ?)"
                    " ORDER BY created_at, id LIMIT 1",
                    keep or ("", -1),
                ).fetchone()
                if oldest is None:
                    break  # only the turn under way is left: it keeps what it has
                self._db.execute("DELETE FROM turns WHERE id = ?", (oldest["id"],))
                dropped.append((oldest["conversation_id"], oldest["turn"]))
                self._collect()
        return dropped

    def used_bytes(self) -> int:
        with self._lock:
            return self._used()

    # --- helpers ------------------------------------------------------------------------

    def _used(self) -> int:
        return int(self._db.execute("SELECT COALESCE(SUM(size), 0) FROM blobs").fetchone()[0])

    def _turn_id(self, conversation_id: str, turn: int) -> int:
        row = self._db.execute(
            "SELECT id FROM turns WHERE conversation_id = ? AND turn = ?", (conversation_id, turn)
        ).fetchone()
        return int(row["id"])

    def _collect(self) -> None:
        """Remove the blobs no file row points at (rows first: a crash leaves files only)."""
        unused = [
            row["digest"]
            for row in self._db.execute(
                "SELECT digest FROM blobs WHERE digest NOT IN"
                " (SELECT before FROM files WHERE before IS NOT NULL"
                " UNION SELECT after FROM files WHERE after IS NOT NULL)"
            )
        ]
        for digest in unused:
            self._db.execute("DELETE FROM blobs WHERE digest = ?", (digest,))
            with contextlib.suppress(FileNotFoundError):
                self._blob_path(digest).unlink()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise
