"""One SQLite file that threads share under a lock: opened in WAL and checked, moved aside and
made anew when damaged, read and written with the file's own "unavailable" error.

The memories (memory_store) and each workspace's index (workspace_index) are such files: a
subclass gives its schema (`_prepare`), its error (`_unavailable`) and what the person is told
when a damaged file was set aside (`_moved_aside`).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from loki_desktop.core.ports import StoreUnavailable
from loki_desktop.persistence.aside import move_aside

BUSY_TIMEOUT_S = 5.0


class SqliteFile:
    """The file's one connection, shared under a lock."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.notices: list[str] = []
        self._lock = threading.Lock()
        self._writes = 0  # our own changes (PRAGMA data_version counts only the others')
        try:
            self._db = self._open()
        except (sqlite3.OperationalError, OSError) as exc:  # locked, unwritable folder
            raise self._unavailable(exc) from exc
        except sqlite3.DatabaseError as exc:
            kept = move_aside(self.path, companions=("-wal", "-shm"))
            self.notices.append(self._moved_aside(exc, kept.name))
            self._db = self._open()

    # --- what a subclass says ------------------------------------------------------------

    def _prepare(self, db: sqlite3.Connection) -> None:
        """Create or migrate the schema, and check what quick_check does not (FTS)."""
        raise NotImplementedError

    def _unavailable(self, exc: Exception) -> StoreUnavailable:
        raise NotImplementedError

    def _moved_aside(self, exc: Exception, kept: str) -> str:
        raise NotImplementedError

    # --- shared --------------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(
            self.path, isolation_level=None, timeout=BUSY_TIMEOUT_S, check_same_thread=False
        )
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA foreign_keys=ON")
            if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise sqlite3.DatabaseError("quick_check failed")
            self._prepare(db)
        except BaseException:
            db.close()
            raise
        return db

    def take_notices(self) -> list[str]:
        notices, self.notices = self.notices, []
        return notices

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._db.execute(sql, params).fetchall()
            except sqlite3.OperationalError as exc:
                raise self._unavailable(exc) from exc

    @contextlib.contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    yield self._db
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                raise self._unavailable(exc) from exc
            self._writes += 1


def statements(script: str) -> list[str]:
    """The statements of a script, split where sqlite3 says one is complete (a trigger body
    holds semicolons)."""
    found: list[str] = []
    current = ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            found.append(current.strip())
            current = ""
    if current.strip():
        found.append(current.strip())
    return found
