"""One workspace's index in SQLite (outside the workspace): files read, their passages, FTS5
over the passages' terms, and their vectors. A file that cannot be read is moved aside and
the index built again (it only holds what the workspace's files say)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from loki_desktop.core.i18n import _
from loki_desktop.core.ports import Passage, StoreUnavailable, VectorRows
from loki_desktop.persistence.sqlite_file import SqliteFile, statements

SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, mtime REAL NOT NULL, size INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS passages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    path TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE,
    line INTEGER NOT NULL,
    text TEXT NOT NULL,
    terms TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS passages_by_path ON passages(path);
CREATE VIRTUAL TABLE IF NOT EXISTS passage_terms USING fts5(
    terms, content='passages', content_rowid='id', tokenize='unicode61'
);
CREATE TRIGGER IF NOT EXISTS passages_ai AFTER INSERT ON passages BEGIN
    INSERT INTO passage_terms(rowid, terms) VALUES (new.id, new.terms);
END;
CREATE TRIGGER IF NOT EXISTS passages_ad AFTER DELETE ON passages BEGIN
    INSERT INTO passage_terms(passage_terms, rowid, terms) VALUES ('delete', old.id, old.terms);
END;
CREATE TABLE IF NOT EXISTS passage_vectors (
    passage_id INTEGER NOT NULL REFERENCES passages(id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (model, passage_id)
);
"""
SCHEMA_VERSION = 1


class IndexUnavailable(StoreUnavailable):
    """The index file is locked, unwritable, or from a newer Loki."""


class IndexFile(SqliteFile):
    """PassageStore over one SQLite file."""

    def _prepare(self, db: sqlite3.Connection) -> None:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise IndexUnavailable(_("L'index du dossier vient d'une version plus récente."))
        for statement in statements(SCHEMA):
            db.execute(statement)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("INSERT INTO passage_terms(passage_terms, rank) VALUES ('integrity-check', 1)")

    def _unavailable(self, exc: Exception) -> StoreUnavailable:
        return IndexUnavailable(
            _("L'index du dossier ({path}) ne peut pas être ouvert : {error}.").format(
                path=self.path, error=exc
            )
        )

    def _moved_aside(self, exc: Exception, kept: str) -> str:
        return _(
            "L'index du dossier était illisible ({error}) : mis de côté dans {kept}, il est refait."
        ).format(error=exc, kept=kept)

    # --- reading ---------------------------------------------------------------------

    def files(self) -> dict[str, tuple[float, int]]:
        rows = self._rows("SELECT path, mtime, size FROM files")
        return {str(r[0]): (float(r[1]), int(r[2])) for r in rows}

    def count(self) -> int:
        return int(self._rows("SELECT count(*) FROM passages")[0][0])

    def version(self) -> int:
        with self._lock:
            others = int(self._db.execute("PRAGMA data_version").fetchone()[0])
            return others * 1_000_003 + self._writes

    def passage(self, passage_id: int) -> Passage | None:
        rows = self._rows("SELECT id, path, line, text FROM passages WHERE id = ?", (passage_id,))
        return _passage(rows[0]) if rows else None

    def search_terms(self, terms: Sequence[str], limit: int) -> list[tuple[int, float]]:
        if not terms:
            return []
        query = " OR ".join('"' + term.replace('"', "") + '"' for term in terms)
        rows = self._rows(
            "SELECT rowid, bm25(passage_terms) FROM passage_terms WHERE passage_terms MATCH ?"
            " ORDER BY bm25(passage_terms) LIMIT ?",
            (query, limit),
        )
        return [(int(row[0]), -float(row[1])) for row in rows if row[1] < 0]

    def vectors(self, model: str) -> VectorRows:
        rows = self._rows(
            "SELECT passage_id, dim, vector FROM passage_vectors WHERE model = ?"
            " ORDER BY passage_id",
            (model,),
        )
        if not rows:
            return VectorRows((), b"", 0)
        dim = int(rows[0][1])
        kept = [row for row in rows if row[1] == dim and len(row[2]) == dim * 4]
        return VectorRows(
            tuple(int(row[0]) for row in kept), b"".join(bytes(row[2]) for row in kept), dim
        )

    def without_vectors(self, model: str, limit: int) -> list[Passage]:
        rows = self._rows(
            "SELECT id, path, line, text FROM passages WHERE id NOT IN"
            " (SELECT passage_id FROM passage_vectors WHERE model = ?) ORDER BY id LIMIT ?",
            (model, limit),
        )
        return [_passage(row) for row in rows]

    # --- writing ---------------------------------------------------------------------

    def replace(
        self, path: str, mtime: float, size: int, passages: Sequence[tuple[int, str, str]]
    ) -> None:
        with self._writing() as db:
            db.execute("DELETE FROM passages WHERE path = ?", (path,))
            db.execute("INSERT OR REPLACE INTO files VALUES (?, ?, ?)", (path, mtime, size))
            db.executemany(
                "INSERT INTO passages (path, line, text, terms) VALUES (?, ?, ?, ?)",
                [(path, line, text, terms) for line, text, terms in passages],
            )

    def remove(self, path: str) -> None:
        with self._writing() as db:
            db.execute("DELETE FROM passages WHERE path = ?", (path,))
            db.execute("DELETE FROM files WHERE path = ?", (path,))

    def put_vectors(self, model: str, dim: int, rows: Sequence[tuple[int, bytes]]) -> None:
        with self._writing() as db:
            # a passage gone while it was embedded (its file changed) gets no vector
            db.executemany(
                "INSERT OR REPLACE INTO passage_vectors (passage_id, model, dim, vector)"
                " SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM passages WHERE id = ?)",
                [(pid, model, dim, vector, pid) for pid, vector in rows],
            )

    def drop_vectors(self, model: str) -> None:
        with self._writing() as db:
            db.execute("DELETE FROM passage_vectors WHERE model = ?", (model,))


def _passage(row: Any) -> Passage:
    return Passage(int(row[0]), str(row[1]), int(row[2]), str(row[3]))
