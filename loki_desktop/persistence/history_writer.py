"""The window's history: History on a writer thread of its own, streamed text in batches.

The window calls its store on the GUI thread (the qasync loop). Written straight to
SQLite, every shown token would be one INSERT there, and a history locked by another
program would freeze the window for up to the busy timeout (5 s) per statement. Here:

- every write (create, append, start/finish an answer, rename, pin, delete) is queued
  and returns at once (a branch change or an import waits for its answer); one thread
  runs them in order on its own connection;
- streamed text is gathered and written as one chunk about every BATCH_S (100 ms);
- a read (messages, page, list, exists) waits for the writes queued before it, so it
  sees them (a read may still wait on a locked file: reads happen when a conversation
  opens or a turn starts, never per token);
- a write that fails (the file locked past the timeout, a full disk) is raised by the
  next call, as the StoreUnavailable the agent turns into a sentence for the user.

Crash guarantee: a kill -9 loses at most the text of the last batch, the ~100 ms of
answer not yet written; everything before it is in answer_chunks and is folded into a
cut answer at the next start, as with History alone. The CLI keeps History's direct
writes (one process, one turn, no window to keep responsive).
"""

from __future__ import annotations

import concurrent.futures
import logging
import queue
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from loki_desktop.core.message_meta import MessageMeta
from loki_desktop.core.messages import (
    Branches,
    CallRecord,
    ChatMessage,
    ConversationExport,
    ConversationInfo,
)
from loki_desktop.persistence.history import History
from loki_desktop.persistence.turn_lock import ConversationTurnLock, lock_turn

log = logging.getLogger(__name__)

BATCH_S = 0.1  # streamed text is written at most this long after it was shown
# SQLite's page cache for the window's connection (its default: 2 MB). Filled page by page
# as conversations are opened, it grew the window's memory all day (~4 KB a turn in the
# soak bench) up to its 2 MB; a page missed is read again from the OS's file cache (a
# 40-message page of a conversation is ~100 pages of 4 KB).
CACHE_KB = 256
T = TypeVar("T")
Job = Callable[[History], object]  # what it returns is dropped


class _Stop:
    """Ends the writer thread once every job queued before it ran."""


class _Wake:
    """Makes the writer look at the clock again (text started gathering)."""


_STOP = _Stop()
_WAKE = _Wake()


class BackgroundHistory:
    """ConversationStore over History whose writes never wait on SQLite in the caller."""

    def __init__(self, path: Path, *, batch_s: float = BATCH_S) -> None:
        self.path = Path(path)
        self._batch_s = batch_s
        self._jobs: queue.SimpleQueue[Job | _Stop | _Wake] = queue.SimpleQueue()
        self._lock = threading.Lock()  # guards the fields below (caller and writer)
        self._text: list[tuple[int, str]] = []  # (answer handle, text) not yet queued
        self._text_due = 0.0  # when the gathered text must be written
        self._failure: BaseException | None = None  # a failed write, raised by the next call
        self._answers: dict[int, int] = {}  # answer handle -> message id (writer thread only)
        self._next_handle = 0
        self._closed = False
        opened: concurrent.futures.Future[History] = concurrent.futures.Future()
        self._thread = threading.Thread(
            target=self._serve, args=(opened,), name="loki-history", daemon=True
        )
        self._thread.start()
        opened.result()  # opening errors (too new, unavailable) raise here

    # --- reads: wait for the writes queued before them ---------------------------------

    def exists(self, conversation_id: str) -> bool:
        return self._read(lambda h: h.exists(conversation_id))

    def messages(self, conversation_id: str) -> list[ChatMessage]:
        return self._read(lambda h: h.messages(conversation_id))

    def page(
        self, conversation_id: str, limit: int, before_id: int | None = None
    ) -> list[ChatMessage]:
        return self._read(lambda h: h.page(conversation_id, limit, before_id))

    def list_conversations(
        self, query: str = "", workspace: str | None = None
    ) -> list[ConversationInfo]:
        return self._read(lambda h: h.list_conversations(query, workspace))

    def last_turn(self, conversation_id: str) -> int:
        return self._read(lambda h: h.last_turn(conversation_id))

    def branches(
        self, conversation_id: str, among: Sequence[int] | None = None
    ) -> dict[int, Branches]:
        return self._read(lambda h: h.branches(conversation_id, among))

    def export(self, conversation_id: str) -> ConversationExport:
        return self._read(lambda h: h.export(conversation_id))

    # Branch changes and imports wait for their answer: a refusal (a message of another
    # conversation, an id already kept) is said to the caller, not to the next call.

    def rewind(self, conversation_id: str, message_id: int | None) -> None:
        self._read(lambda h: h.rewind(conversation_id, message_id))

    def switch_branch(self, conversation_id: str, message_id: int) -> None:
        self._read(lambda h: h.switch_branch(conversation_id, message_id))

    def import_conversation(self, conversation: ConversationExport) -> str:
        return self._read(lambda h: h.import_conversation(conversation))

    def take_notices(self) -> list[str]:
        return self._read(lambda h: h.take_notices())

    def cache_kb(self) -> int:
        return self._read(lambda h: h.cache_kb())

    # --- the turn lock ------------------------------------------------------------------

    def lock_turn(self, conversation_id: str) -> _QueuedRelease | None:
        """The conversation's turn lock (an OS lock file: taking it never waits on SQLite).
        Its release is queued behind the turn's writes, so another process that takes the
        lock next reads the whole turn."""
        held = lock_turn(self.path, conversation_id)
        return None if held is None else _QueuedRelease(self, held)

    # --- writes: queued, they return at once -------------------------------------------

    def create(self, title: str, workspace: str | None = None) -> str:
        conversation_id = uuid.uuid4().hex[:12]
        self._write(lambda h: h.create(title, workspace, conversation_id=conversation_id))
        return conversation_id

    def append(self, conversation_id: str, message: ChatMessage) -> None:
        self._write(lambda h: h.append(conversation_id, message))

    def start_answer(self, conversation_id: str, *, turn: int | None = None) -> int:
        """A handle for the answer (its message id is known to the writer thread only)."""
        with self._lock:
            self._next_handle += 1
            handle = self._next_handle

        def start(history: History) -> None:
            self._answers[handle] = history.start_answer(conversation_id, turn=turn)

        self._write(start)
        return handle

    def append_answer_text(self, message_id: int, text: str) -> None:
        with self._lock:
            if not self._text:
                self._text_due = time.monotonic() + self._batch_s
                self._jobs.put(_WAKE)
            self._text.append((message_id, text))
        self._raise_failure()

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
        def finish(history: History) -> None:
            answer = self._answers.pop(message_id, None)
            if answer is not None:  # None: its start failed, and was told
                history.finish_answer(
                    answer,
                    content=content,
                    tool_calls=tool_calls,
                    cut=cut,
                    meta=meta,
                    thinking=thinking,
                    thinking_seconds=thinking_seconds,
                )

        self._write(finish)

    def rename(self, conversation_id: str, title: str) -> None:
        self._write(lambda h: h.rename(conversation_id, title))

    def set_pinned(self, conversation_id: str, pinned: bool) -> None:
        self._write(lambda h: h.set_pinned(conversation_id, pinned))

    def delete(self, conversation_id: str) -> None:
        self._write(lambda h: h.delete(conversation_id))

    def close(self) -> None:
        """Write what is queued, then close the file (blocks until done)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._queue_text()
            self._jobs.put(lambda h: h.close())
            self._jobs.put(_STOP)
        self._thread.join()
        if self._failure is not None:
            log.warning("history: a write failed before closing: %s", self._failure)

    # --- the caller's side -------------------------------------------------------------

    def _write(self, job: Job) -> None:
        """Queue `job`, then raise a failure of an earlier write if there was one (the job
        still runs: finishing an answer after a failed chunk must not be lost too)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the history is closed")
            self._queue_text()  # text shown before this write is written before it
            self._jobs.put(job)
        self._raise_failure()

    def _read(self, read: Callable[[History], T]) -> T:
        answer: concurrent.futures.Future[T] = concurrent.futures.Future()

        def job(history: History) -> None:
            try:
                answer.set_result(read(history))
            except BaseException as exc:  # the caller gets it, not the writer
                answer.set_exception(exc)

        self._write(job)
        return answer.result()

    def _release_after_writes(self, held: ConversationTurnLock) -> None:
        with self._lock:
            if self._closed:  # close() wrote everything already
                held.release()
                return
            self._queue_text()
            self._jobs.put(lambda _h: held.release())

    def _raise_failure(self) -> None:
        with self._lock:
            failure, self._failure = self._failure, None
        if failure is not None:
            raise failure

    def _queue_text(self) -> None:
        """Hand the gathered text to the writer as one job (the lock is held)."""
        if not self._text:
            return
        batch, self._text = self._text, []
        self._jobs.put(lambda h: self._write_text(h, batch))

    # --- the writer thread -------------------------------------------------------------

    def _serve(self, opened: concurrent.futures.Future[History]) -> None:
        try:
            history = History(self.path, cache_kb=CACHE_KB)  # a connection of this thread
        except BaseException as exc:
            opened.set_exception(exc)
            return
        opened.set_result(history)
        while True:
            try:
                job = self._jobs.get(timeout=self._until_due())
            except queue.Empty:  # nothing queued, and the gathered text is due
                with self._lock:
                    self._queue_text()
                continue
            if isinstance(job, _Stop):
                return
            if isinstance(job, _Wake):
                continue
            try:
                job(history)
            except Exception as exc:  # told by the next call; later writes still run
                log.warning("history: a write failed: %s", exc)
                with self._lock:
                    self._failure = self._failure or exc

    def _until_due(self) -> float | None:
        with self._lock:
            if not self._text:
                return None
            return max(0.0, self._text_due - time.monotonic())

    def _write_text(self, history: History, batch: list[tuple[int, str]]) -> None:
        """One chunk per answer of the batch (almost always a single answer)."""
        texts: dict[int, list[str]] = {}
        for handle, text in batch:
            texts.setdefault(handle, []).append(text)
        for handle, parts in texts.items():
            answer = self._answers.get(handle)
            if answer is not None:  # None: its start failed, and was told
                history.append_answer_text(answer, "".join(parts))


class _QueuedRelease:
    """A held turn lock whose release waits for the writes queued before it."""

    def __init__(self, store: BackgroundHistory, held: ConversationTurnLock) -> None:
        self._store = store
        self._held: ConversationTurnLock | None = held

    def release(self) -> None:
        held, self._held = self._held, None
        if held is not None:
            self._store._release_after_writes(held)
