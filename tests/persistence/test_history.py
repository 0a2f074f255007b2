"""history.db: message-by-message writes, cut answers kept, migrations, corruption handled."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from loki_desktop.core.events import ChangedFile, CheckReport, SkillUsed
from loki_desktop.core.image_attachment import ImageAttachment
from loki_desktop.core.message_meta import NO_META, MessageMeta, UndoNote
from loki_desktop.core.messages import CallRecord, ChatMessage
from loki_desktop.core.ports import StoreUnavailable
from loki_desktop.persistence.history import SCHEMA_VERSION, History, HistoryTooNew
from tests.conftest import REPO


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "history.db"


def test_a_conversation_round_trips_with_tool_calls_and_meta(db_path: Path) -> None:
    history = History(db_path)
    conv = history.create("Premier essai", workspace="/tmp/ws")
    skill = MessageMeta(skill=SkillUsed("x", "X"))
    history.append(conv, ChatMessage("user", "écris a.py", meta=skill))
    answer = history.start_answer(conv)
    history.append_answer_text(answer, "Je ")
    history.append_answer_text(answer, "m'en occupe.")
    call = CallRecord("call_1", "write_file", {"path": "a.py", "content": "x = 1\n"})
    history.finish_answer(answer, content="Je m'en occupe.", tool_calls=[call])
    history.append(
        conv,
        ChatMessage(
            "tool",
            "Created a.py",
            tool_call_id="call_1",
            tool_name="write_file",
            meta=MessageMeta(summary="a.py écrit"),
        ),
    )
    history.close()

    reopened = History(db_path)
    messages = reopened.messages(conv)
    assert [m.role for m in messages] == ["user", "assistant", "tool"]
    assert messages[0].meta == skill
    assert messages[2].meta == MessageMeta(ok=True, summary="a.py écrit")
    assert messages[1].content == "Je m'en occupe."
    assert messages[1].tool_calls == (call,)
    assert not messages[1].cut
    assert messages[2].tool_name == "write_file"
    assert messages[2].to_ollama() == {
        "role": "tool",
        "content": "Created a.py",
        "tool_name": "write_file",
    }
    info = reopened.list_conversations()[0]
    assert (info.title, info.message_count, info.workspace) == ("Premier essai", 3, "/tmp/ws")


def test_an_answer_cut_by_kill_9_is_kept_and_marked_cut(db_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import os, signal
        from loki_desktop.core.messages import ChatMessage
        from loki_desktop.persistence.history import History
        h = History({str(db_path)!r})
        conv = h.create("crash")
        h.append(conv, ChatMessage("user", "raconte"))
        answer = h.start_answer(conv)
        for word in ["Il ", "était ", "une ", "fois"]:
            h.append_answer_text(answer, word)
        print(conv, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    child = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=False
    )
    assert child.returncode == -9
    conv = child.stdout.strip()

    raw = sqlite3.connect(db_path)
    assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    raw.close()
    history = History(db_path)
    messages = history.messages(conv)
    assert [(m.role, m.content, m.cut) for m in messages] == [
        ("user", "raconte", False),
        ("assistant", "Il était une fois", True),
    ]


def test_finish_answer_as_cut_keeps_the_partial_text(db_path: Path) -> None:
    history = History(db_path)
    conv = history.create("c")
    answer = history.start_answer(conv)
    history.append_answer_text(answer, "partial")
    history.finish_answer(answer, content="partial", cut=True)
    assert [(m.content, m.cut) for m in history.messages(conv)] == [("partial", True)]


def test_search_rename_delete(db_path: Path) -> None:
    history = History(db_path)
    first = history.create("Recette de crêpes")
    second = history.create("Script Python")
    history.append(second, ChatMessage("user", "corrige mon 100% cassé script"))
    assert [c.id for c in history.list_conversations("crêpes")] == [first]
    assert [c.id for c in history.list_conversations("100%")] == [second]
    assert history.list_conversations("_") == []  # LIKE wildcards are escaped
    history.rename(first, "Crêpes bretonnes")
    assert history.list_conversations("bretonnes")[0].title == "Crêpes bretonnes"
    history.delete(second)
    assert [c.id for c in history.list_conversations()] == [first]
    assert history.messages(second) == []


def test_page_loads_the_latest_messages_first(db_path: Path) -> None:
    history = History(db_path)
    conv = history.create("long")
    for index in range(30):
        history.append(conv, ChatMessage("user", f"m{index}"))
    last = history.page(conv, limit=10)
    assert [m.content for m in last] == [f"m{i}" for i in range(20, 30)]
    before = history.page(conv, limit=10, before_id=last[0].id)
    assert [m.content for m in before] == [f"m{i}" for i in range(10, 20)]


def test_a_fresh_database_is_migrated_to_the_current_schema(db_path: Path) -> None:
    History(db_path).close()
    raw = sqlite3.connect(db_path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {row[0] for row in raw.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"conversations", "messages", "answer_chunks"} <= tables


def test_migrations_apply_in_order_from_an_older_version(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from loki_desktop.persistence import history as module

    History(db_path).close()  # at version 1
    extra = module.Migration("labels", "ALTER TABLE conversations ADD COLUMN label TEXT")
    monkeypatch.setattr(module, "MIGRATIONS", [*module.MIGRATIONS, extra])
    monkeypatch.setattr(module, "SCHEMA_VERSION", len(module.MIGRATIONS))
    History(db_path).close()
    raw = sqlite3.connect(db_path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
    columns = {row[1] for row in raw.execute("PRAGMA table_info(conversations)")}
    assert "label" in columns


def test_a_newer_schema_is_refused_untouched(db_path: Path) -> None:
    History(db_path).close()
    raw = sqlite3.connect(db_path)
    raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    raw.commit()
    raw.close()
    with pytest.raises(HistoryTooNew):
        History(db_path)
    assert db_path.exists()


def test_a_corrupt_database_is_moved_aside_and_replaced(db_path: Path) -> None:
    db_path.write_bytes(b"this is not a database at all" * 100)
    history = History(db_path)
    assert history.notices
    assert "mis de côté" in history.notices[0]
    kept = [p for p in db_path.parent.iterdir() if p.name.startswith("history.corrupt-")]
    assert len(kept) == 1
    assert kept[0].read_bytes().startswith(b"this is not a database")
    conv = history.create("neuf")
    assert history.exists(conv)


def test_a_failed_write_rolls_back_and_later_writes_are_kept(db_path: Path) -> None:
    history = History(db_path)
    deleted, other = history.create("supprimée"), history.create("autre")
    history.delete(deleted)  # the window deletes it while `ask` still answers in it
    with pytest.raises(sqlite3.IntegrityError):
        history.append(deleted, ChatMessage("assistant", "réponse tardive"))

    history.append(other, ChatMessage("user", "toujours là"))
    answer = history.start_answer(other)
    history.append_answer_text(answer, "en cours")
    raw = sqlite3.connect(db_path, timeout=0)
    seen = raw.execute("SELECT COUNT(*) FROM messages WHERE conversation_id = ?", (other,))
    assert seen.fetchone()[0] == 2
    assert raw.execute("SELECT COUNT(*) FROM answer_chunks").fetchone()[0] == 1
    raw.execute(  # not locked out
        "INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('x', 't', 0, 0)"
    )
    raw.commit()
    raw.close()


def test_a_failed_finish_keeps_the_answer_streaming_and_whole(db_path: Path) -> None:
    history = History(db_path)
    conv = history.create("c")
    answer = history.start_answer(conv)
    history.append_answer_text(answer, "partiel")
    raw = sqlite3.connect(db_path)
    # the second statement of the fold fails (as a full disk would)
    raw.execute(
        "CREATE TRIGGER refuse BEFORE DELETE ON answer_chunks"
        " BEGIN SELECT RAISE(ABORT, 'disk'); END"
    )
    raw.commit()
    with pytest.raises(sqlite3.IntegrityError, match="disk"):
        history.finish_answer(answer, content="partiel et fini")
    row = raw.execute("SELECT status, content FROM messages WHERE id = ?", (answer,)).fetchone()
    assert row == ("streaming", "")  # the UPDATE before the failure was rolled back
    raw.execute("DROP TRIGGER refuse")
    raw.commit()
    raw.close()
    history.finish_answer(answer, content="partiel et fini")
    assert [(m.content, m.cut) for m in history.messages(conv)] == [("partiel et fini", False)]


def test_a_locked_database_is_reported_not_moved_aside(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from loki_desktop.persistence import history as module

    history = History(db_path)
    conv = history.create("précieuse")
    history.close()
    monkeypatch.setattr(module, "BUSY_TIMEOUT_S", 0.1)
    other = sqlite3.connect(db_path, isolation_level=None)
    other.execute("PRAGMA locking_mode=EXCLUSIVE")
    other.execute("BEGIN EXCLUSIVE")
    before = sorted(p.name for p in db_path.parent.iterdir())

    with pytest.raises(StoreUnavailable, match="verrouillé par un autre programme"):
        History(db_path)

    assert sorted(p.name for p in db_path.parent.iterdir()) == before
    other.execute("COMMIT")
    other.close()
    assert History(db_path).exists(conv)


def test_an_unopenable_database_is_reported_not_moved_aside(db_path: Path) -> None:
    db_path.mkdir()  # not a file at all: sqlite3 cannot open it (an I/O error)
    before = sorted(p.name for p in db_path.parent.iterdir())
    with pytest.raises(StoreUnavailable, match="inaccessible"):
        History(db_path)
    assert sorted(p.name for p in db_path.parent.iterdir()) == before


WRITER = """
import os, signal, sys
from loki_desktop.core.messages import ChatMessage
from loki_desktop.persistence.history import History
h = History({path!r})
conv = h.create("fenêtre")
h.append(conv, ChatMessage("user", "q"))
answer = h.start_answer(conv)
h.append_answer_text(answer, "Part one. ")
print(conv, flush=True)
sys.stdin.readline()
h.append_answer_text(answer, "Part two.")
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_second_open_leaves_a_live_answer_alone(db_path: Path) -> None:
    with subprocess.Popen(
        [sys.executable, "-c", WRITER.format(path=str(db_path))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    ) as window:
        assert window.stdin is not None
        assert window.stdout is not None
        conv = window.stdout.readline().strip()

        History(db_path).close()  # `ask` starts while the window streams

        raw = sqlite3.connect(db_path)
        assert raw.execute("SELECT status FROM messages WHERE role = 'assistant'").fetchone() == (
            "streaming",
        )
        raw.close()
        window.stdin.write("\n")
        window.stdin.flush()
        assert window.wait(timeout=30) == -9

    history = History(db_path)  # the next start: the writer is gone now
    last = history.messages(conv)[-1]
    assert (last.content, last.cut) == ("Part one. Part two.", True)
    raw = sqlite3.connect(db_path)
    assert raw.execute("SELECT COUNT(*) FROM answer_chunks").fetchone()[0] == 0
    raw.close()


def test_chunks_left_behind_a_folded_answer_are_folded_into_it(db_path: Path) -> None:
    history = History(db_path)
    conv = history.create("c")
    history.close()
    raw = sqlite3.connect(db_path)
    # an older Loki folded a live answer; its writer went on, then died
    cursor = raw.execute(
        "INSERT INTO messages (conversation_id, role, content, status, created_at)"
        " VALUES (?, 'assistant', 'Part one. ', 'cut', 0)",
        (conv,),
    )
    raw.execute("INSERT INTO answer_chunks VALUES (?, 1, 'Part two.')", (cursor.lastrowid,))
    raw.execute("UPDATE conversations SET leaf_id = ?", (cursor.lastrowid,))
    raw.commit()
    raw.close()

    history = History(db_path)
    assert [(m.content, m.cut) for m in history.messages(conv)] == [("Part one. Part two.", True)]
    history.close()
    raw = sqlite3.connect(db_path)
    assert raw.execute("SELECT COUNT(*) FROM answer_chunks").fetchone()[0] == 0
    raw.close()


def test_a_version_1_database_is_migrated_and_its_open_answer_recovered(db_path: Path) -> None:
    from loki_desktop.persistence.history import MIGRATIONS

    raw = sqlite3.connect(db_path)
    raw.executescript(MIGRATIONS[0].script)
    raw.execute("PRAGMA user_version = 1")
    raw.execute("INSERT INTO conversations VALUES ('c1', 'ancienne', NULL, 0, 0)")
    raw.execute(
        "INSERT INTO messages (conversation_id, role, status, created_at)"
        " VALUES ('c1', 'assistant', 'streaming', 0)"
    )
    raw.execute("INSERT INTO answer_chunks VALUES (1, 0, 'coupée')")
    raw.commit()
    raw.close()

    history = History(db_path)

    assert [(m.content, m.cut) for m in history.messages("c1")] == [("coupée", True)]
    history.close()
    raw = sqlite3.connect(db_path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 2
    columns = {row[1] for row in raw.execute("PRAGMA table_info(messages)")}
    assert "writer" in columns
    raw.close()


def test_a_version_2_database_gains_reasoning_and_images(db_path: Path) -> None:
    from loki_desktop.persistence.history import MIGRATIONS

    raw = sqlite3.connect(db_path)
    raw.executescript(MIGRATIONS[0].script)
    raw.executescript(MIGRATIONS[1].script)
    raw.execute("PRAGMA user_version = 2")
    raw.execute("INSERT INTO conversations VALUES ('c1', 'ancienne', NULL, 0, 0)")
    raw.execute(
        "INSERT INTO messages (conversation_id, role, content, created_at)"
        " VALUES ('c1', 'assistant', 'Bonjour', 0)"
    )
    raw.commit()
    raw.close()

    history = History(db_path)
    old = history.messages("c1")[0]
    assert (old.content, old.thinking, old.thinking_seconds, old.images) == (
        "Bonjour",
        "",
        None,
        (),
    )
    answer = history.start_answer("c1")
    history.append_answer_text(answer, "Réponse")
    history.finish_answer(answer, content="Réponse", thinking="je pense", thinking_seconds=1.5)
    picture = ImageAttachment("image/png", 1, 1, data=b"\x89PNG fake")
    history.append("c1", ChatMessage("user", "vois", images=(picture,)))
    again = History(db_path)
    _old, reasoned, seen = again.messages("c1")
    assert (reasoned.thinking, reasoned.thinking_seconds) == ("je pense", 1.5)
    assert seen.images[0].path is not None
    assert seen.images[0].content() == b"\x89PNG fake"
    assert (seen.images[0].mime_type, seen.images[0].width) == ("image/png", 1)
    history.close()
    again.close()


def test_an_image_that_cannot_be_written_is_a_sentence(db_path: Path) -> None:
    history = History(db_path)
    history.images_dir.write_text("a file where the images folder goes")
    conversation = history.create("c")
    picture = ImageAttachment("image/png", 1, 1, data=b"\x89PNG fake", name="a.png")
    with pytest.raises(StoreUnavailable, match=r"L.image « a\.png » n.a pas pu être enregistrée"):
        history.append(conversation, ChatMessage("user", "vois", images=(picture,)))
    assert history.messages(conversation) == []
    history.close()


def test_rows_written_by_older_versions_reopen_with_typed_meta(db_path: Path) -> None:
    """The `extra` column as older versions filled it (extra keys, missing keys, a damaged
    text) reads back typed; nothing raises."""
    history = History(db_path)
    conv = history.create("Ancienne")
    for content in ("q", "r1", "r2", "r3"):
        history.append(conv, ChatMessage("user", content))
    history.close()
    rows = [
        json.dumps({"skill": {"name": "x"}, "router_score": 0.7}),
        json.dumps(
            {
                "ok": False,
                "summary": "échec",
                "shell_changes": [{"path": "b.txt", "kind": "added"}],
                "check": {"path": "a.py", "ok": False, "skipped": None, "problems": []},
            }
        ),
        json.dumps({"undo": {"direction": "redo", "turn": 2, "restored": ["a.py"]}}),
        "{not json",
    ]
    db = sqlite3.connect(db_path)
    with db:
        ids = [row[0] for row in db.execute("SELECT id FROM messages ORDER BY id")]
        for message_id, extra in zip(ids, rows, strict=True):
            db.execute("UPDATE messages SET extra = ? WHERE id = ?", (extra, message_id))
    db.close()
    reopened = History(db_path)
    metas = [m.meta for m in reopened.messages(conv)]
    reopened.close()
    assert metas == [
        MessageMeta(skill=SkillUsed("x", "")),
        MessageMeta(
            ok=False,
            summary="échec",
            shell_changes=(ChangedFile("b.txt", "added"),),
            check=CheckReport("a.py", False),
        ),
        MessageMeta(undo=UndoNote("redo", 2, restored=("a.py",))),
        NO_META,
    ]


def test_an_answer_finished_with_meta_keeps_it(db_path: Path) -> None:
    history = History(db_path)
    conv = history.create("Appel écrit en texte")
    answer = history.start_answer(conv)
    call = CallRecord("call_1", "read_file", {"path": "a.py"})
    meta = MessageMeta(text_call="json", prompted_tools=True)
    history.finish_answer(answer, content="", tool_calls=[call], meta=meta)
    history.close()
    reopened = History(db_path)
    (message,) = reopened.messages(conv)
    reopened.close()
    assert message.meta == meta
