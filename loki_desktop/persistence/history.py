"""Conversations in SQLite (history.db): WAL, a schema version, ordered migrations.

Written message by message. A streaming answer is stored as it arrives, one small
row per chunk, so a crash (even kill -9) or a cut stream loses nothing already said;
the chunks are folded into the message when it ends, or at the next start if the
process died first (the answer is then marked as cut).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from loki_desktop.core.messages import CallRecord, ChatMessage, ConversationInfo

# Each entry upgrades the schema by one version; never edit a released one, append.
MIGRATIONS: list[str] = [
    # 1: conversations, messages, and the chunks of answers being streamed
    """
    CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        workspace TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE TABLE messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        role TEXT NOT NULL,
        content TEXT NOT NULL DEFAULT '',
        tool_calls TEXT,
        tool_call_id TEXT,
        tool_name TEXT,
        origin TEXT NOT NULL DEFAULT 'user',
        status TEXT NOT NULL DEFAULT 'complete',
        extra TEXT,
        created_at REAL NOT NULL
    );
    CREATE INDEX messages_by_conversation ON messages(conversation_id, id);
    CREATE TABLE answer_chunks (
        message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        text TEXT NOT NULL,
        PRIMARY KEY (message_id, seq)
    );
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)


class HistoryTooNew(Exception):
    """history.db was written by a newer Loki: refuse rather than damage it."""


class History:
    """ConversationStore over one SQLite file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.notices: list[str] = []
        try:
            self._db = self._open()
        except sqlite3.DatabaseError as exc:
            kept = self._move_aside()
            self.notices.append(
                f"L'historique était illisible ({exc}) : il a été mis de côté dans "
                f"{kept.name} et un nouvel historique a été créé."
            )
            self._db = self._open()
        self._chunk_seq: dict[int, int] = {}
        self._recover_streaming_answers()

    # --- opening, migrations, recovery ---------------------------------------------

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None)  # autocommit; BEGIN when needed
        try:
            db.row_factory = sqlite3.Row
            db.execute("PRAGMA journal_mode=WAL")
            # NORMAL: a commit survives a process crash; only a power cut may lose the last ones
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA foreign_keys=ON")
            if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise sqlite3.DatabaseError("quick_check failed")
            self._migrate(db)
        except BaseException:
            db.close()
            raise
        return db

    @staticmethod
    def _migrate(db: sqlite3.Connection) -> None:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise HistoryTooNew(
                f"history.db a le schéma {version}, plus récent que celui de cette version "
                f"de Loki ({SCHEMA_VERSION}) : mettez Loki à jour."
            )
        for number in range(version, SCHEMA_VERSION):
            db.execute("BEGIN IMMEDIATE")
            try:
                for statement in _statements(MIGRATIONS[number]):
                    db.execute(statement)
                db.execute(f"PRAGMA user_version = {number + 1}")
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def _move_aside(self) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        target = self.path.with_name(f"{self.path.stem}.corrupt-{stamp}{self.path.suffix}")
        os.replace(self.path, target)
        for suffix in ("-wal", "-shm"):
            side = Path(str(self.path) + suffix)
            if side.exists():
                os.replace(side, Path(str(target) + suffix))
        return target

    def _recover_streaming_answers(self) -> None:
        """Fold the chunks of answers a dead process left open; mark them cut."""
        rows = self._db.execute("SELECT id FROM messages WHERE status = 'streaming'").fetchall()
        for row in rows:
            self._fold_chunks(row["id"], cut=True)

    def _fold_chunks(
        self,
        message_id: int,
        *,
        cut: bool,
        content: str | None = None,
        tool_calls: Sequence[CallRecord] = (),
        extra: dict[str, Any] | None = None,
    ) -> None:
        if content is None:
            content = "".join(
                r["text"]
                for r in self._db.execute(
                    "SELECT text FROM answer_chunks WHERE message_id = ? ORDER BY seq",
                    (message_id,),
                )
            )
        self._db.execute("BEGIN IMMEDIATE")
        self._db.execute(
            "UPDATE messages SET content = ?, status = ?, tool_calls = ?,"
            " extra = COALESCE(?, extra) WHERE id = ?",
            (
                content,
                "cut" if cut else "complete",
                _calls_json(tool_calls),
                json.dumps(extra) if extra is not None else None,
                message_id,
            ),
        )
        self._db.execute("DELETE FROM answer_chunks WHERE message_id = ?", (message_id,))
        self._db.execute("COMMIT")
        self._chunk_seq.pop(message_id, None)

    def close(self) -> None:
        self._db.close()

    def take_notices(self) -> list[str]:
        notices, self.notices = self.notices, []
        return notices

    # --- ConversationStore -----------------------------------------------------------

    def create(self, title: str, workspace: str | None = None) -> str:
        conversation_id = uuid.uuid4().hex[:12]
        now = time.time()
        self._db.execute(
            "INSERT INTO conversations (id, title, workspace, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (conversation_id, title or "Nouvelle conversation", workspace, now, now),
        )
        return conversation_id

    def exists(self, conversation_id: str) -> bool:
        row = self._db.execute(
            "SELECT 1 FROM conversations WHERE id = ?", (conversation_id,)
        ).fetchone()
        return row is not None

    def messages(self, conversation_id: str) -> list[ChatMessage]:
        rows = self._db.execute(
            "SELECT * FROM messages WHERE conversation_id = ? ORDER BY id", (conversation_id,)
        ).fetchall()
        return [self._message(row) for row in rows]

    def page(
        self, conversation_id: str, limit: int, before_id: int | None = None
    ) -> list[ChatMessage]:
        """The `limit` messages before `before_id` (the latest ones when None), oldest first."""
        rows = self._db.execute(
            "SELECT * FROM messages WHERE conversation_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
            (conversation_id, before_id if before_id is not None else 2**62, limit),
        ).fetchall()
        return [self._message(row) for row in reversed(rows)]

    def append(self, conversation_id: str, message: ChatMessage) -> int:
        now = time.time()
        self._db.execute("BEGIN IMMEDIATE")
        cursor = self._db.execute(
            "INSERT INTO messages (conversation_id, role, content, tool_calls, tool_call_id,"
            " tool_name, origin, status, extra, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                conversation_id,
                message.role,
                message.content,
                _calls_json(message.tool_calls),
                message.tool_call_id,
                message.tool_name,
                message.origin,
                "cut" if message.cut else "complete",
                json.dumps(message.extra) if message.extra else None,
                now,
            ),
        )
        self._touch(conversation_id, now)
        self._db.execute("COMMIT")
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def start_answer(self, conversation_id: str) -> int:
        now = time.time()
        cursor = self._db.execute(
            "INSERT INTO messages (conversation_id, role, status, created_at)"
            " VALUES (?, 'assistant', 'streaming', ?)",
            (conversation_id, now),
        )
        assert cursor.lastrowid is not None
        self._chunk_seq[cursor.lastrowid] = 0
        return cursor.lastrowid

    def append_answer_text(self, message_id: int, text: str) -> None:
        seq = self._chunk_seq.get(message_id, 0)
        self._db.execute(
            "INSERT INTO answer_chunks (message_id, seq, text) VALUES (?, ?, ?)",
            (message_id, seq, text),
        )
        self._chunk_seq[message_id] = seq + 1

    def finish_answer(
        self,
        message_id: int,
        *,
        content: str,
        tool_calls: Sequence[CallRecord] = (),
        cut: bool = False,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self._fold_chunks(message_id, cut=cut, content=content, tool_calls=tool_calls, extra=extra)
        row = self._db.execute(
            "SELECT conversation_id FROM messages WHERE id = ?", (message_id,)
        ).fetchone()
        if row is not None:
            self._touch(row["conversation_id"], time.time())

    def update_extra(self, message_id: int, extra: dict[str, Any]) -> None:
        self._db.execute(
            "UPDATE messages SET extra = ? WHERE id = ?", (json.dumps(extra), message_id)
        )

    def list_conversations(self, query: str = "") -> list[ConversationInfo]:
        sql = (
            "SELECT c.*, (SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id)"
            " AS message_count FROM conversations c"
        )
        params: tuple[Any, ...] = ()
        if query.strip():
            pattern = f"%{_escape_like(query.strip())}%"
            sql += (
                " WHERE c.title LIKE ? ESCAPE '\\' OR EXISTS (SELECT 1 FROM messages m"
                " WHERE m.conversation_id = c.id AND m.role IN ('user', 'assistant')"
                " AND m.content LIKE ? ESCAPE '\\')"
            )
            params = (pattern, pattern)
        sql += " ORDER BY c.updated_at DESC"
        return [
            ConversationInfo(
                id=row["id"],
                title=row["title"],
                created_at=row["created_at"],
                updated_at=row["updated_at"],
                message_count=row["message_count"],
                workspace=row["workspace"],
            )
            for row in self._db.execute(sql, params)
        ]

    def rename(self, conversation_id: str, title: str) -> None:
        self._db.execute(
            "UPDATE conversations SET title = ? WHERE id = ?", (title.strip(), conversation_id)
        )

    def delete(self, conversation_id: str) -> None:
        self._db.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))

    # --- helpers -------------------------------------------------------------------

    def _touch(self, conversation_id: str, now: float) -> None:
        self._db.execute(
            "UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conversation_id)
        )

    @staticmethod
    def _message(row: sqlite3.Row) -> ChatMessage:
        calls = tuple(
            CallRecord(c["id"], c["name"], c["args"]) for c in json.loads(row["tool_calls"] or "[]")
        )
        return ChatMessage(
            role=row["role"],
            content=row["content"],
            tool_calls=calls,
            tool_call_id=row["tool_call_id"],
            tool_name=row["tool_name"],
            origin=row["origin"],
            cut=row["status"] != "complete",
            extra=json.loads(row["extra"]) if row["extra"] else {},
            id=row["id"],
        )


def _statements(script: str) -> list[str]:
    return [part.strip() for part in script.split(";") if part.strip()]


def _calls_json(calls: Sequence[CallRecord]) -> str | None:
    if not calls:
        return None
    return json.dumps([{"id": c.id, "name": c.name, "args": c.args} for c in calls])


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
