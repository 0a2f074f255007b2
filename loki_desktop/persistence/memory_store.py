"""Memories in SQLite (memories.db): their text, an FTS5 index of their terms, their vectors.

The core computes each memory's `terms` (words, stems, joined tokens: core.memory.terms) and
its vectors; this file only keeps them. FTS5 ranks the words with bm25; vectors are float32
blobs, one row per memory and embedding model, read all at once for an exact search in numpy.
A file that cannot be read is moved aside and a new one made (said once in a notice).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from typing import Any, cast

from loki_desktop.core.i18n import _
from loki_desktop.core.ports import Memory, MemorySource, StoreUnavailable, VectorRows
from loki_desktop.persistence.sqlite_file import SqliteFile, statements

# Each entry upgrades the schema by one version; never edit a released one, append.
MIGRATIONS: list[str] = [
    # 1: memories, the FTS5 index of their terms (kept in step by triggers), their vectors
    """
    CREATE TABLE memories (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        text TEXT NOT NULL,
        terms TEXT NOT NULL,
        source TEXT NOT NULL,
        conversation_id TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE VIRTUAL TABLE memory_terms USING fts5(
        terms, content='memories', content_rowid='id', tokenize='unicode61'
    );
    CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
        INSERT INTO memory_terms(rowid, terms) VALUES (new.id, new.terms);
    END;
    CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
        INSERT INTO memory_terms(memory_terms, rowid, terms) VALUES ('delete', old.id, old.terms);
    END;
    CREATE TRIGGER memories_au AFTER UPDATE OF terms ON memories BEGIN
        INSERT INTO memory_terms(memory_terms, rowid, terms) VALUES ('delete', old.id, old.terms);
        INSERT INTO memory_terms(rowid, terms) VALUES (new.id, new.terms);
    END;
    CREATE TABLE memory_vectors (
        memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        model TEXT NOT NULL,
        dim INTEGER NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (model, memory_id)
    );
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)
_COLUMNS = "id, text, source, created_at, conversation_id"


class MemoriesUnavailable(StoreUnavailable):
    """memories.db is locked by another program, unwritable, or from a newer Loki."""


class MemoryFile(SqliteFile):
    """MemoryStore over one SQLite file; one connection shared under a lock."""

    def _prepare(self, db: sqlite3.Connection) -> None:
        _migrate(db)
        # an FTS index out of step with its table is corruption too
        db.execute("INSERT INTO memory_terms(memory_terms, rank) VALUES ('integrity-check', 1)")

    def _unavailable(self, exc: Exception) -> StoreUnavailable:
        return MemoriesUnavailable(
            _("Les souvenirs ({path}) ne peuvent pas être ouverts : {error}.").format(
                path=self.path, error=exc
            )
        )

    def _moved_aside(self, exc: Exception, kept: str) -> str:
        return _(
            "Le fichier des souvenirs était illisible ({error}) : il a été mis de côté "
            "dans {kept} et un nouveau a été créé."
        ).format(error=exc, kept=kept)

    # --- reading ---------------------------------------------------------------------

    def get(self, memory_id: int) -> Memory | None:
        rows = self._rows(f"SELECT {_COLUMNS} FROM memories WHERE id = ?", (memory_id,))
        return _memory(rows[0]) if rows else None

    def find_text(self, text: str) -> Memory | None:
        rows = self._rows(f"SELECT {_COLUMNS} FROM memories WHERE text = ? LIMIT 1", (text,))
        return _memory(rows[0]) if rows else None

    def recent(self, limit: int = 1000, offset: int = 0) -> list[Memory]:
        rows = self._rows(
            f"SELECT {_COLUMNS} FROM memories ORDER BY id DESC LIMIT ? OFFSET ?", (limit, offset)
        )
        return [_memory(row) for row in rows]

    def count(self) -> int:
        return int(self._rows("SELECT count(*) FROM memories")[0][0])

    def version(self) -> int:
        with self._lock:
            others = int(self._db.execute("PRAGMA data_version").fetchone()[0])
            return others * 1_000_003 + self._writes

    def search_terms(self, terms: Sequence[str], limit: int) -> list[tuple[int, float]]:
        if not terms:
            return []
        # the core gives [a-z0-9] terms only; quoting keeps FTS5's syntax out of them anyway
        query = " OR ".join('"' + term.replace('"', "") + '"' for term in terms)
        rows = self._rows(
            "SELECT rowid, bm25(memory_terms) FROM memory_terms WHERE memory_terms MATCH ?"
            " ORDER BY bm25(memory_terms) LIMIT ?",
            (query, limit),
        )
        # bm25() is negative, lower is better: give it back as a positive score
        return [(int(row[0]), -float(row[1])) for row in rows if row[1] < 0]

    def vectors(self, model: str) -> VectorRows:
        rows = self._rows(
            "SELECT memory_id, dim, vector FROM memory_vectors WHERE model = ? ORDER BY memory_id",
            (model,),
        )
        if not rows:
            return VectorRows((), b"", 0)
        dim = int(rows[0][1])
        kept = [row for row in rows if row[1] == dim and len(row[2]) == dim * 4]
        return VectorRows(
            tuple(int(row[0]) for row in kept), b"".join(bytes(row[2]) for row in kept), dim
        )

    def without_vectors(self, model: str, limit: int) -> list[Memory]:
        rows = self._rows(
            f"SELECT {_COLUMNS} FROM memories WHERE id NOT IN"
            " (SELECT memory_id FROM memory_vectors WHERE model = ?) ORDER BY id LIMIT ?",
            (model, limit),
        )
        return [_memory(row) for row in rows]

    # --- writing ---------------------------------------------------------------------

    def add(
        self, text: str, terms: str, *, source: MemorySource, conversation_id: str | None = None
    ) -> Memory:
        now = time.time()
        with self._writing() as db:
            cursor = db.execute(
                "INSERT INTO memories (text, terms, source, conversation_id, created_at,"
                " updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                (text, terms, source, conversation_id, now, now),
            )
            memory_id = int(cast(int, cursor.lastrowid))
        return Memory(memory_id, text, source, now, conversation_id)

    def update(self, memory_id: int, text: str, terms: str) -> Memory | None:
        with self._writing() as db:
            changed = db.execute(
                "UPDATE memories SET text = ?, terms = ?, updated_at = ? WHERE id = ?",
                (text, terms, time.time(), memory_id),
            ).rowcount
            db.execute("DELETE FROM memory_vectors WHERE memory_id = ?", (memory_id,))
        return self.get(memory_id) if changed else None

    def delete(self, memory_id: int) -> bool:
        with self._writing() as db:
            return bool(db.execute("DELETE FROM memories WHERE id = ?", (memory_id,)).rowcount)

    def put_vectors(self, model: str, dim: int, rows: Sequence[tuple[int, bytes]]) -> None:
        with self._writing() as db:
            # a memory deleted while it was being embedded gets no vector
            db.executemany(
                "INSERT OR REPLACE INTO memory_vectors (memory_id, model, dim, vector)"
                " SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM memories WHERE id = ?)",
                [(memory_id, model, dim, vector, memory_id) for memory_id, vector in rows],
            )

    def drop_vectors(self, model: str) -> None:
        with self._writing() as db:
            db.execute("DELETE FROM memory_vectors WHERE model = ?", (model,))


def _migrate(db: sqlite3.Connection) -> None:
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise MemoriesUnavailable(
            _(
                "{name} a le schéma {version}, plus récent que celui de cette version de Loki "
                "({ours}) : mettez Loki à jour."
            ).format(name="memories.db", version=version, ours=SCHEMA_VERSION)
        )
    for number in range(version, SCHEMA_VERSION):
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in statements(MIGRATIONS[number]):
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {number + 1}")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")


_SOURCES: dict[str, MemorySource] = {"asked": "asked", "typed": "typed", "extracted": "extracted"}


def _memory(row: Any) -> Memory:
    source = _SOURCES.get(str(row[2]), "typed")
    return Memory(int(row[0]), str(row[1]), source, float(row[3]), row[4])
