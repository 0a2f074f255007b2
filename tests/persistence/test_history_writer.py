"""The window's history: writes on a thread of their own, streamed text in batches."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from loki_desktop.core.messages import CallRecord, ChatMessage
from loki_desktop.core.ports import StoreUnavailable
from loki_desktop.persistence import history as history_module
from loki_desktop.persistence.history import History
from loki_desktop.persistence.history_writer import BackgroundHistory
from tests.conftest import REPO


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "history.db"


@pytest.fixture
def store(db_path: Path) -> Iterator[BackgroundHistory]:
    store = BackgroundHistory(db_path)
    yield store
    store.close()


def chunks(db_path: Path) -> list[str]:
    """The streamed text on disk, one entry per row, read by another connection."""
    db = sqlite3.connect(db_path)
    try:
        return [row[0] for row in db.execute("SELECT text FROM answer_chunks ORDER BY seq")]
    finally:
        db.close()


def eventually(condition: Callable[[], object], within: float = 30.0) -> None:
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.01)


@pytest.fixture
def held_lock(db_path: Path) -> Iterator[Callable[[], None]]:
    """The file locked by another program (an EXCLUSIVE transaction); call it to let go."""
    History(db_path).close()  # the file and its schema exist
    holder = sqlite3.connect(db_path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")

    def release() -> None:
        if holder.in_transaction:
            holder.execute("ROLLBACK")

    yield release
    release()
    holder.close()


def test_what_is_written_is_read_back_in_order(store: BackgroundHistory, db_path: Path) -> None:
    conv = store.create("Premier essai", workspace="/tmp/ws")
    store.append(conv, ChatMessage("user", "écris a.py"))
    answer = store.start_answer(conv)
    store.append_answer_text(answer, "Je ")
    store.append_answer_text(answer, "m'en occupe.")
    call = CallRecord("call_1", "write_file", {"path": "a.py"})
    store.finish_answer(answer, content="Je m'en occupe.", tool_calls=[call])

    # a read sees every write queued before it
    messages = store.messages(conv)
    assert [(m.role, m.content, m.cut) for m in messages] == [
        ("user", "écris a.py", False),
        ("assistant", "Je m'en occupe.", False),
    ]
    assert messages[1].tool_calls == (call,)
    assert store.exists(conv)
    store.rename(conv, "Renommée")
    assert [info.title for info in store.list_conversations()] == ["Renommée"]
    assert [m.content for m in store.page(conv, 1)] == ["Je m'en occupe."]
    store.delete(conv)
    assert not store.exists(conv)


def test_the_windows_connection_keeps_a_small_page_cache(
    store: BackgroundHistory, db_path: Path
) -> None:
    """SQLite's default page cache (2 MB) filled page by page as conversations were opened
    and grew the window's memory all day; the window's connection holds a quarter of a MB,
    and a conversation several times larger reads back whole."""
    conv = store.create("Longue")
    answers = [f"réponse {n} " + "x" * 20_000 for n in range(60)]  # ~1.2 MB of text
    for text in answers:
        store.append(conv, ChatMessage("assistant", text))
    assert store.cache_kb() <= 256
    assert [m.content for m in store.messages(conv)] == answers
    assert [m.content for m in store.page(conv, 2)] == answers[-2:]
    direct = History(db_path)  # the CLI's connection: SQLite's own default
    try:
        assert direct.cache_kb() == 2000
    finally:
        direct.close()


def test_writes_return_while_the_file_is_locked_and_text_is_batched(
    store: BackgroundHistory, db_path: Path, held_lock: Callable[[], None]
) -> None:
    # Straight SQLite in this thread would wait here for the lock this very thread holds
    # (5 s, then HistoryUnavailable): queued writes return at once.
    conv = store.create("Pendant le verrou")
    store.append(conv, ChatMessage("user", "question"))
    answer = store.start_answer(conv)
    words = [f"mot{i} " for i in range(50)]
    for word in words:
        store.append_answer_text(answer, word)
    held_lock()

    eventually(lambda: "".join(chunks(db_path)) == "".join(words))
    # gathered while the writer waited on the lock: one or two rows, not fifty
    assert len(chunks(db_path)) <= 2
    assert [m.role for m in store.messages(conv)] == ["user", "assistant"]


def test_a_write_that_fails_is_told_by_the_next_call(
    db_path: Path, held_lock: Callable[[], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(history_module, "BUSY_TIMEOUT_S", 0.2)
    store = BackgroundHistory(db_path)
    try:
        store.create("Jamais écrite")  # waits 0.2 s on the lock, then fails in the writer

        failures: list[str] = []

        def told() -> bool:
            try:
                store.list_conversations()  # a WAL read is not blocked by the lock
            except StoreUnavailable as exc:
                failures.append(str(exc))
            return bool(failures)

        eventually(told)
        assert "verrouillé" in failures[0]
        held_lock()
        conv = store.create("Écrite")  # the writer goes on once the lock is gone
        assert [info.title for info in store.list_conversations()] == ["Écrite"]
        assert store.exists(conv)
    finally:
        store.close()


def test_close_writes_the_gathered_text(db_path: Path) -> None:
    store = BackgroundHistory(db_path, batch_s=60)  # only close() can write it
    conv = store.create("Fermée en cours de réponse")
    answer = store.start_answer(conv)
    store.append_answer_text(answer, "Le début")
    store.close()

    history = History(db_path)  # the writer closed: its answer is folded, marked cut
    try:
        (message,) = history.messages(conv)
        assert (message.content, message.cut) == ("Le début", True)
    finally:
        history.close()


KILLED_WRITER = """
import sys, time
from loki_desktop.persistence.history_writer import BackgroundHistory
store = BackgroundHistory({path!r})
conv = store.create("tuée")
answer = store.start_answer(conv)
for index in range(20):
    store.append_answer_text(answer, f"mot{{index}} ")
print(conv, flush=True)
time.sleep(600)  # streaming stalls here: nothing more is shown, nothing finishes the answer
"""


def test_kill_9_keeps_every_batch_written_before_it(db_path: Path) -> None:
    shown = "".join(f"mot{index} " for index in range(20))
    with subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER.format(path=str(db_path))],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    ) as writer:
        assert writer.stdout is not None
        conv = writer.stdout.readline().strip()
        # the batch reaches the file on its own, ~100 ms after the last text: no finish,
        # no close, no more text needed
        eventually(lambda: "".join(chunks(db_path)) == shown)
        writer.kill()
        assert writer.wait(timeout=30) == -9

    history = History(db_path)  # the next start folds it into a cut answer
    try:
        (message,) = history.messages(conv)
        assert (message.content, message.cut) == (shown, True)
    finally:
        history.close()


def lock_is_free(store: BackgroundHistory, conversation: str) -> bool:
    taken = store.lock_turn(conversation)
    if taken is None:
        return False
    taken.release()
    return True


def test_the_turn_lock_is_held_until_the_turns_writes_are_on_disk(
    store: BackgroundHistory, db_path: Path, held_lock: Callable[[], None]
) -> None:
    """While the file is locked the turn's writes wait; its lock must wait with them, or
    another process could take the conversation and read it without the turn."""
    conversation = store.create("demo")
    lock = store.lock_turn(conversation)
    assert lock is not None
    assert store.lock_turn(conversation) is None  # one turn at a time
    store.append(conversation, ChatMessage(role="user", content="bonjour"))
    lock.release()
    assert store.lock_turn(conversation) is None  # the write is still queued behind the lock
    held_lock()
    eventually(lambda: lock_is_free(store, conversation))
    other = History(db_path)
    try:
        assert [m.content for m in other.messages(conversation)] == ["bonjour"]
    finally:
        other.close()
