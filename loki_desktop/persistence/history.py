"""Conversations in SQLite (history.db): WAL, a schema version, ordered migrations.

Written message by message. A streaming answer is stored as it arrives, one small
row per chunk, so a crash (even kill -9) or a cut stream loses nothing already said;
the chunks are folded into the message when it ends, or by the next process that opens
the file once the writer has died (the answer is then marked as cut). A writer is known
alive by a lock file it holds: the system drops the lock however the process ends.
One turn at a time per conversation, across processes: the same kind of lock (turn_lock).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import os
import shutil
import sqlite3
import time
import uuid
import weakref
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, ParamSpec, TypeVar

from loki_desktop.core.i18n import _
from loki_desktop.core.image_attachment import ImageAttachment
from loki_desktop.core.message_meta import NO_META, MessageMeta
from loki_desktop.core.messages import (
    Branches,
    CallRecord,
    ChatMessage,
    ConversationExport,
    ConversationInfo,
    StoredMessage,
)
from loki_desktop.core.ports import ImportRefused, StoreUnavailable, UnknownConversation
from loki_desktop.persistence import history_tree as tree
from loki_desktop.persistence.aside import move_aside
from loki_desktop.persistence.turn_lock import ConversationTurnLock, lock_turn, try_lock


@dataclasses.dataclass(frozen=True, slots=True)
class Migration:
    """One step of the schema, named for what it adds (the name is for people and logs)."""

    name: str
    script: str


# Each entry upgrades the schema by one version; never edit a released one, append.
MIGRATIONS: list[Migration] = [
    # 1: conversations, messages, and the chunks of answers being streamed
    Migration(
        "conversations",
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
    ),
    # 2: the writer of a streaming answer (the name of the lock file it holds), so that
    # another process opening the file does not fold an answer that is still being written
    Migration("answer-writers", "ALTER TABLE messages ADD COLUMN writer TEXT"),
    # 3: a thinking model's reasoning (and how long it took), and a message's images (a
    # JSON list naming files kept beside history.db, in images/<conversation id>/)
    Migration(
        "reasoning-and-images",
        """
        ALTER TABLE messages ADD COLUMN thinking TEXT;
        ALTER TABLE messages ADD COLUMN thinking_seconds REAL;
        ALTER TABLE messages ADD COLUMN images TEXT
        """,
    ),
    # 4: branches. Each message names the one it follows (parent_id) and the turn that wrote
    # it; a conversation names the last message of the branch shown (leaf_id) and whether it
    # is pinned. Older conversations are one branch: each message follows the one written
    # before it, and turns are numbered as the checkpoints already know them (the count of
    # the person's messages so far), so every existing undo keeps pointing at its turn.
    Migration(
        "branches",
        """
        ALTER TABLE messages ADD COLUMN parent_id INTEGER;
        ALTER TABLE messages ADD COLUMN turn INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE conversations ADD COLUMN leaf_id INTEGER;
        ALTER TABLE conversations ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
        UPDATE messages SET parent_id = ordered.parent, turn = ordered.turn FROM (
            SELECT id, LAG(id) OVER written AS parent,
                SUM(role = 'user' AND origin = 'user') OVER written AS turn
            FROM messages WINDOW written AS (PARTITION BY conversation_id ORDER BY id)
        ) AS ordered WHERE messages.id = ordered.id;
        UPDATE conversations SET leaf_id =
            (SELECT MAX(id) FROM messages WHERE conversation_id = conversations.id);
        CREATE INDEX messages_by_parent ON messages(conversation_id, parent_id)
        """,
    ),
]
SCHEMA_VERSION = len(MIGRATIONS)
P = ParamSpec("P")
R = TypeVar("R")
# How long a statement waits for another process's lock before giving up.
BUSY_TIMEOUT_S = 5.0
_EXTENSIONS = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/webp": ".webp",
    "image/gif": ".gif",
}


class HistoryTooNew(StoreUnavailable):
    """history.db was written by a newer Loki: refuse rather than damage it."""


class HistoryUnavailable(StoreUnavailable):
    """history.db is locked by another program or cannot be read (not corrupt: kept as is)."""


def _reported(method: Callable[P, R]) -> Callable[P, R]:
    """A store call that meets a lock held past the timeout, or an I/O error, raises
    HistoryUnavailable with a sentence for the user instead of a bare sqlite3 error."""

    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(*args, **kwargs)
        except sqlite3.OperationalError as exc:
            history = args[0]
            assert isinstance(history, History)  # a method of History (defined below)
            raise HistoryUnavailable(_unavailable_message(history.path, exc)) from exc

    return wrapper


class History:
    """ConversationStore over one SQLite file."""

    def __init__(self, path: Path, *, cache_kb: int | None = None) -> None:
        self.path = Path(path)
        self._cache_kb = cache_kb  # SQLite's page cache for this connection (None: its 2 MB)
        # images of messages, as files: images/<conversation id>/<digest>.<ext>
        self.images_dir = self.path.with_name("images")
        self.notices: list[str] = []
        # one lock file per process streaming answers into this history (see _writer_token)
        self._writers = self.path.with_name(self.path.name + "-writers")
        self._writer: str | None = None  # ours, taken at our first streamed answer
        self._release_writer: weakref.finalize[[int, Path], History] | None = None
        try:
            self._db = self._open()
        except sqlite3.OperationalError as exc:
            # locked by another program, or an I/O error: the file is fine, leave it be
            raise HistoryUnavailable(_unavailable_message(path, exc)) from exc
        except sqlite3.DatabaseError as exc:
            kept = move_aside(self.path, companions=("-wal", "-shm"))
            self.notices.append(
                _(
                    "L'historique était illisible ({error}) : il a été mis de côté dans "
                    "{kept} et un nouvel historique a été créé."
                ).format(error=exc, kept=kept.name)
            )
            self._db = self._open()
        self._chunk_seq: dict[int, int] = {}
        # a file busy past the timeout: those answers are folded at a later start
        with contextlib.suppress(sqlite3.OperationalError):
            self._recover_streaming_answers()

    # --- opening, migrations, recovery ---------------------------------------------

    def _open(self) -> sqlite3.Connection:
        # autocommit; BEGIN when needed
        db = sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_TIMEOUT_S)
        try:
            db.row_factory = sqlite3.Row
            db.execute("PRAGMA journal_mode=WAL")
            # NORMAL: a commit survives a process crash; only a power cut may lose the last ones
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA foreign_keys=ON")
            if self._cache_kb is not None:
                db.execute(f"PRAGMA cache_size = -{int(self._cache_kb)}")
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
                _(
                    "history.db a le schéma {version}, plus récent que celui de cette version "
                    "de Loki ({ours}) : mettez Loki à jour."
                ).format(version=version, ours=SCHEMA_VERSION)
            )
        for number in range(version, SCHEMA_VERSION):
            with _transaction(db):
                for statement in _statements(MIGRATIONS[number].script):
                    db.execute(statement)
                db.execute(f"PRAGMA user_version = {number + 1}")

    def _recover_streaming_answers(self) -> None:
        """Fold the chunks of answers whose writer is gone, marking them cut; and chunks left
        behind an answer already folded (by a Loki that did not know its writer was alive)."""
        rows = self._db.execute(
            "SELECT id, writer FROM messages WHERE status = 'streaming'"
            " OR id IN (SELECT message_id FROM answer_chunks)"
        ).fetchall()
        for row in rows:
            if self._writer_alive(row["writer"]):
                continue
            with _transaction(self._db):
                # read inside the transaction: another process may have folded it meanwhile
                message = self._db.execute(
                    "SELECT content, status FROM messages WHERE id = ?", (row["id"],)
                ).fetchone()
                if message is None:
                    continue
                chunks = "".join(
                    r["text"]
                    for r in self._db.execute(
                        "SELECT text FROM answer_chunks WHERE message_id = ? ORDER BY seq",
                        (row["id"],),
                    )
                )
                status = "cut" if message["status"] == "streaming" else message["status"]
                self._db.execute(
                    "UPDATE messages SET content = ?, status = ? WHERE id = ?",
                    (message["content"] + chunks, status, row["id"]),
                )
                self._db.execute("DELETE FROM answer_chunks WHERE message_id = ?", (row["id"],))

    def _writer_token(self) -> str | None:
        """Our writer name, its lock file taken (None: no lock could be taken; the answer is
        then recovered by the next process to open the file, as with an older Loki)."""
        if self._writer is None:
            token = uuid.uuid4().hex
            path = self._writers / token
            try:
                self._writers.mkdir(exist_ok=True)
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError:
                return None
            if not try_lock(fd):
                os.close(fd)
                return None
            self._writer = token
            # held until close(), or until this object is collected (no more writes then)
            self._release_writer = weakref.finalize(self, _release, fd, path)
        return self._writer

    def _writer_alive(self, writer: str | None) -> bool:
        if writer is None:
            return False
        if writer == self._writer:
            return True
        path = self._writers / writer
        try:
            fd = os.open(path, os.O_RDWR)
        except FileNotFoundError:
            return False  # its writer closed normally
        except OSError:
            return True  # cannot tell: leave its answer alone
        try:
            if not try_lock(fd):
                return True
        finally:
            os.close(fd)  # also drops the lock we may have taken
        with contextlib.suppress(OSError):
            path.unlink()
        return False

    def lock_turn(self, conversation_id: str) -> ConversationTurnLock | None:
        """The conversation's turn lock, or None while another turn holds it (turn_lock)."""
        return lock_turn(self.path, conversation_id)

    def close(self) -> None:
        self._db.close()
        if self._release_writer is not None:
            self._release_writer()

    def take_notices(self) -> list[str]:
        notices, self.notices = self.notices, []
        return notices

    # --- ConversationStore -----------------------------------------------------------

    @_reported
    def create(
        self, title: str, workspace: str | None = None, *, conversation_id: str | None = None
    ) -> str:
        """A new conversation; its id is made here unless given (history_writer makes it)."""
        conversation_id = conversation_id or uuid.uuid4().hex[:12]
        now = time.time()
        self._db.execute(
            "INSERT INTO conversations (id, title, workspace, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (conversation_id, title or _("Nouvelle conversation"), workspace, now, now),
        )
        return conversation_id

    @_reported
    def exists(self, conversation_id: str) -> bool:
        row = self._db.execute(
            "SELECT 1 FROM conversations WHERE id = ?", (conversation_id,)
        ).fetchone()
        return row is not None

    @_reported
    def messages(self, conversation_id: str) -> list[ChatMessage]:
        """The branch shown, first message first (a child is written after its parent, so
        the path's ids only grow)."""
        rows = self._db.execute(
            tree.PATH + "SELECT m.* FROM messages m JOIN path ON m.id = path.id ORDER BY m.id",
            {"conversation": conversation_id},
        ).fetchall()
        return [self._message(row) for row in rows]

    def cache_kb(self) -> int:
        """The most memory SQLite's page cache may hold for this connection, in KB."""
        size = int(self._db.execute("PRAGMA cache_size").fetchone()[0])
        page = int(self._db.execute("PRAGMA page_size").fetchone()[0])
        return -size if size < 0 else size * page // 1024

    @_reported
    def page(
        self, conversation_id: str, limit: int, before_id: int | None = None
    ) -> list[ChatMessage]:
        """The `limit` messages of the branch shown before `before_id` (the latest ones when
        None), oldest first: `limit` steps up from there, whatever the branch's length."""
        rows = self._db.execute(
            tree.UP + "SELECT m.* FROM messages m JOIN up ON m.id = up.id ORDER BY m.id",
            {
                "start": tree.page_start(self._db, conversation_id, before_id),
                "limit": limit,
            },
        ).fetchall()
        return [self._message(row) for row in rows]

    @_reported
    def append(self, conversation_id: str, message: ChatMessage) -> None:
        now = time.time()
        images = self._store_images(conversation_id, message.images)
        with _transaction(self._db):
            parent, turn = tree.at_leaf(self._db, conversation_id, message.turn)
            message_id = self._insert(conversation_id, message, images, now, parent, turn)
            self._grow(conversation_id, message_id, now)

    def _insert(
        self,
        conversation_id: str,
        message: ChatMessage,
        images: str | None,
        created_at: float,
        parent: int | None,
        turn: int,
    ) -> int:
        cursor = self._db.execute(
            "INSERT INTO messages (conversation_id, role, content, tool_calls, tool_call_id,"
            " tool_name, origin, status, extra, created_at, thinking, thinking_seconds,"
            " images, parent_id, turn) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                conversation_id,
                message.role,
                message.content,
                _calls_json(message.tool_calls),
                message.tool_call_id,
                message.tool_name,
                message.origin,
                "cut" if message.cut else "complete",
                _meta_json(message.meta),
                created_at,
                message.thinking or None,
                message.thinking_seconds,
                images,
                parent,
                turn,
            ),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    @_reported
    def start_answer(self, conversation_id: str, *, turn: int | None = None) -> int:
        now = time.time()
        writer = self._writer_token()
        with _transaction(self._db):
            parent, number = tree.at_leaf(self._db, conversation_id, turn)
            cursor = self._db.execute(
                "INSERT INTO messages (conversation_id, role, status, writer, created_at,"
                " parent_id, turn) VALUES (?, 'assistant', 'streaming', ?, ?, ?, ?)",
                (conversation_id, writer, now, parent, number),
            )
            assert cursor.lastrowid is not None
            self._grow(conversation_id, cursor.lastrowid, now)
        self._chunk_seq[cursor.lastrowid] = 0
        return cursor.lastrowid

    @_reported
    def append_answer_text(self, message_id: int, text: str) -> None:
        seq = self._chunk_seq.get(message_id, 0)
        self._db.execute(
            "INSERT INTO answer_chunks (message_id, seq, text) VALUES (?, ?, ?)",
            (message_id, seq, text),
        )
        self._chunk_seq[message_id] = seq + 1

    @_reported
    def finish_answer(
        self,
        message_id: int,
        *,
        content: str,
        tool_calls: Sequence[CallRecord] = (),
        cut: bool = False,
        meta: MessageMeta | None = None,
        thinking: str = "",
        thinking_seconds: float | None = None,
    ) -> None:
        with _transaction(self._db):
            self._db.execute(
                "UPDATE messages SET content = ?, status = ?, tool_calls = ?,"
                " extra = COALESCE(?, extra), thinking = ?, thinking_seconds = ? WHERE id = ?",
                (
                    content,
                    "cut" if cut else "complete",
                    _calls_json(tool_calls),
                    _meta_json(meta) if meta is not None else None,
                    thinking or None,
                    thinking_seconds,
                    message_id,
                ),
            )
            self._db.execute("DELETE FROM answer_chunks WHERE message_id = ?", (message_id,))
        self._chunk_seq.pop(message_id, None)
        row = self._db.execute(
            "SELECT conversation_id FROM messages WHERE id = ?", (message_id,)
        ).fetchone()
        if row is not None:
            self._touch(row["conversation_id"], time.time())

    @_reported
    def list_conversations(
        self, query: str = "", workspace: str | None = None
    ) -> list[ConversationInfo]:
        """Pinned ones first, then the latest; `query` searches titles and messages of every
        branch, `workspace` keeps one folder's conversations."""
        sql = (
            "SELECT c.*, (SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id)"
            " AS message_count FROM conversations c WHERE 1"
        )
        params: tuple[Any, ...] = ()
        if query.strip():
            pattern = f"%{_escape_like(query.strip())}%"
            sql += (
                " AND (c.title LIKE ? ESCAPE '\\' OR EXISTS (SELECT 1 FROM messages m"
                " WHERE m.conversation_id = c.id AND m.role IN ('user', 'assistant')"
                " AND m.content LIKE ? ESCAPE '\\'))"
            )
            params = (pattern, pattern)
        if workspace is not None:
            sql += " AND c.workspace = ?"
            params += (workspace,)
        sql += " ORDER BY c.pinned DESC, c.updated_at DESC"
        return [
            ConversationInfo(
                id=row["id"],
                title=row["title"],
                created_at=row["created_at"],
                updated_at=row["updated_at"],
                message_count=row["message_count"],
                workspace=row["workspace"],
                pinned=bool(row["pinned"]),
            )
            for row in self._db.execute(sql, params)
        ]

    # --- branches, pins ---------------------------------------------------------------

    @_reported
    def last_turn(self, conversation_id: str) -> int:
        return tree.last_turn(self._db, conversation_id)

    @_reported
    def rewind(self, conversation_id: str, message_id: int | None) -> None:
        tree.rewind(self._db, conversation_id, message_id)

    @_reported
    def switch_branch(self, conversation_id: str, message_id: int) -> None:
        with _transaction(self._db):
            tree.switch(self._db, conversation_id, message_id)

    @_reported
    def branches(
        self, conversation_id: str, among: Sequence[int] | None = None
    ) -> dict[int, Branches]:
        return tree.branches(self._db, conversation_id, among)

    @_reported
    def set_pinned(self, conversation_id: str, pinned: bool) -> None:
        self._db.execute(
            "UPDATE conversations SET pinned = ? WHERE id = ?", (int(pinned), conversation_id)
        )

    # --- export, import ---------------------------------------------------------------

    @_reported
    def export(self, conversation_id: str) -> ConversationExport:
        """Every branch; messages numbered 1, 2, ... in the order they were written."""
        head = self._db.execute(
            "SELECT * FROM conversations WHERE id = ?", (conversation_id,)
        ).fetchone()
        if head is None:
            raise UnknownConversation(
                _("Conversation introuvable : {id}").format(id=conversation_id)
            )
        rows = self._db.execute(
            "SELECT * FROM messages WHERE conversation_id = ? ORDER BY id", (conversation_id,)
        ).fetchall()
        numbers = {row["id"]: index for index, row in enumerate(rows, start=1)}
        messages = tuple(
            StoredMessage(
                dataclasses.replace(self._message(row), id=numbers[row["id"]]),
                numbers.get(row["parent_id"]),
                row["created_at"],
            )
            for row in rows
        )
        return ConversationExport(
            id=head["id"],
            title=head["title"],
            workspace=head["workspace"],
            created_at=head["created_at"],
            updated_at=head["updated_at"],
            pinned=bool(head["pinned"]),
            leaf=numbers.get(head["leaf_id"]),
            messages=messages,
        )

    @_reported
    def import_conversation(self, conversation: ConversationExport) -> str:
        """All of it in one transaction, or nothing (its image files are removed again)."""
        if self.exists(conversation.id):
            raise ImportRefused(_id_taken(conversation.id))
        try:
            images = [
                self._store_images(conversation.id, stored.message.images)
                for stored in conversation.messages
            ]
            with _transaction(self._db):
                self._import_rows(conversation, images)
        except sqlite3.IntegrityError as exc:  # imported meanwhile by another process
            shutil.rmtree(self._conversation_images(conversation.id), ignore_errors=True)
            raise ImportRefused(_id_taken(conversation.id)) from exc
        except BaseException:
            shutil.rmtree(self._conversation_images(conversation.id), ignore_errors=True)
            raise
        return conversation.id

    def _import_rows(self, conversation: ConversationExport, images: list[str | None]) -> None:
        self._db.execute(
            "INSERT INTO conversations (id, title, workspace, created_at, updated_at, pinned)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (
                conversation.id,
                conversation.title,
                conversation.workspace,
                conversation.created_at,
                conversation.updated_at,
                int(conversation.pinned),
            ),
        )
        ids: dict[int | None, int | None] = {None: None}
        for stored, stored_images in zip(conversation.messages, images, strict=True):
            ids[stored.message.id] = self._insert(
                conversation.id,
                stored.message,
                stored_images,
                stored.created_at,
                ids[stored.parent],
                stored.message.turn or 0,
            )
        self._db.execute(
            "UPDATE conversations SET leaf_id = ? WHERE id = ?",
            (ids[conversation.leaf], conversation.id),
        )

    @_reported
    def rename(self, conversation_id: str, title: str) -> None:
        self._db.execute(
            "UPDATE conversations SET title = ? WHERE id = ?", (title.strip(), conversation_id)
        )

    @_reported
    def delete(self, conversation_id: str) -> None:
        self._db.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
        # after the rows: a crash in between leaves files nobody points at, never a
        # message whose images are gone
        shutil.rmtree(self._conversation_images(conversation_id), ignore_errors=True)

    # --- helpers -------------------------------------------------------------------

    def _conversation_images(self, conversation_id: str) -> Path:
        # ids are ours (hex), but never let one climb out of the images folder
        return self.images_dir / Path(conversation_id).name

    def _store_images(self, conversation_id: str, images: Sequence[ImageAttachment]) -> str | None:
        """Write the images as files (named by their content) and describe them for the row."""
        if not images:
            return None
        folder = self._conversation_images(conversation_id)
        entries = []
        for image in images:
            try:
                name = self._write_image(folder, image)
            except OSError as exc:  # a full disk, a folder without write rights
                raise HistoryUnavailable(
                    _(
                        "L'image « {name} » n'a pas pu être enregistrée dans {folder} "
                        "({error}) : vérifiez l'espace disque et les droits."
                    ).format(
                        name=image.name or _("collée"), folder=folder, error=exc.strerror or exc
                    )
                ) from exc
            entries.append(
                {
                    "file": f"{folder.name}/{name}",
                    "mime_type": image.mime_type,
                    "width": image.width,
                    "height": image.height,
                    "name": image.name,
                }
            )
        return json.dumps(entries)

    @staticmethod
    def _write_image(folder: Path, image: ImageAttachment) -> str:
        """Write one image (named by its content, so the same image is kept once)."""
        data = image.content()
        name = f"{hashlib.sha256(data).hexdigest()[:24]}{_EXTENSIONS.get(image.mime_type, '')}"
        target = folder / name
        if not target.exists():
            folder.mkdir(parents=True, exist_ok=True)
            partial = target.with_suffix(".part")
            partial.write_bytes(data)
            os.replace(partial, target)
        return name

    def _images(self, raw: str | None) -> tuple[ImageAttachment, ...]:
        return images_of(raw, self.images_dir)

    def _grow(self, conversation_id: str, message_id: int | None, now: float) -> None:
        """The message just written ends the branch shown."""
        self._db.execute(
            "UPDATE conversations SET leaf_id = ?, updated_at = ? WHERE id = ?",
            (message_id, now, conversation_id),
        )

    def _touch(self, conversation_id: str, now: float) -> None:
        self._db.execute(
            "UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conversation_id)
        )

    def _message(self, row: sqlite3.Row) -> ChatMessage:
        calls = calls_of(row["tool_calls"])
        return ChatMessage(
            role=row["role"],
            content=row["content"],
            tool_calls=calls,
            tool_call_id=row["tool_call_id"],
            tool_name=row["tool_name"],
            origin=row["origin"],
            cut=row["status"] != "complete",
            meta=_meta(row["extra"]),
            id=row["id"],
            thinking=row["thinking"] or "",
            thinking_seconds=row["thinking_seconds"],
            images=self._images(row["images"]),
            turn=row["turn"],
        )


@contextlib.contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    """BEGIN IMMEDIATE ... COMMIT; on any failure, ROLLBACK so the connection stays usable
    (an open transaction would make every later write fail and lock other processes out)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def _release(fd: int, path: Path) -> None:
    """Drop a writer's lock and its file (the writer is done)."""
    os.close(fd)
    with contextlib.suppress(OSError):
        path.unlink()


def _id_taken(conversation_id: str) -> str:
    return _(
        "La conversation {id} est déjà dans l'historique : rien n'a été importé (supprimez-la "
        "d'abord avec « loki-desktop history rm {id} » pour la remplacer)."
    ).format(id=conversation_id)


def _unavailable_message(path: Path, exc: sqlite3.OperationalError) -> str:
    if "locked" in str(exc) or "busy" in str(exc):
        return _(
            "L'historique des conversations ({path}) est verrouillé par un autre programme : "
            "fermez-le (ou attendez qu'il ait fini), puis réessayez."
        ).format(path=path)
    return _(
        "L'historique des conversations ({path}) est inaccessible ({error}) : vérifiez les "
        "droits sur ce fichier et l'espace disque libre, puis relancez Loki."
    ).format(path=path, error=exc)


def _statements(script: str) -> list[str]:
    return [part.strip() for part in script.split(";") if part.strip()]


def _meta_json(meta: MessageMeta) -> str | None:
    """The `extra` column: the message's metadata as core.message_meta stores it."""
    data = meta.to_json()
    return json.dumps(data) if data else None


def _meta(column: str | None) -> MessageMeta:
    """The metadata of a row of any version; a damaged one (not JSON, not the shape) is none."""
    data = _json_column(column)
    if not isinstance(data, dict):
        return NO_META
    try:
        return MessageMeta.from_json(data)
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return NO_META


def calls_of(column: str | None) -> tuple[CallRecord, ...]:
    """The `tool_calls` column: the calls of an assistant message (a damaged entry: left out)."""
    data = _json_column(column)
    if not isinstance(data, list):
        return ()
    return tuple(
        CallRecord(str(c["id"]), str(c["name"]), c["args"] if isinstance(c["args"], dict) else {})
        for c in data
        if isinstance(c, dict) and {"id", "name", "args"} <= c.keys()
    )


def images_of(column: str | None, folder: Path) -> tuple[ImageAttachment, ...]:
    """The `images` column: a message's images, kept as files in `folder` (a damaged entry,
    or a file name that would leave the folder, is left out)."""
    data = _json_column(column)
    images = []
    for entry in data if isinstance(data, list) else []:
        if not isinstance(entry, dict):
            continue
        mime, width, height = entry.get("mime_type"), entry.get("width"), entry.get("height")
        file, name = entry.get("file"), entry.get("name", "")
        if not (isinstance(mime, str) and type(width) is int and type(height) is int):
            continue
        if not isinstance(file, str) or not _inside_name(file):
            continue
        images.append(ImageAttachment(mime, width, height, path=folder / file, name=str(name)))
    return tuple(images)


def _inside_name(file: str) -> bool:
    """A relative name (`<conversation>/<image>`) that cannot climb out of the folder."""
    parts = PurePosixPath(file).parts
    return (
        bool(parts)
        and not file.startswith("/")
        and "\x00" not in file
        and not any(part in ("..", ".") for part in parts)
    )


def _json_column(column: str | None) -> object:
    if not column:
        return None
    try:
        return json.loads(column)
    except (ValueError, RecursionError):
        return None


def _calls_json(calls: Sequence[CallRecord]) -> str | None:
    if not calls:
        return None
    return json.dumps([{"id": c.id, "name": c.name, "args": c.args} for c in calls])


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
