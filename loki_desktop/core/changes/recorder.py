"""Keeps each file's state before a turn changes it: the jail calls it around every write."""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable
from pathlib import Path

from loki_desktop.core.i18n import _, ngettext
from loki_desktop.core.messages import ChatMessage
from loki_desktop.core.ports import NOT_KEPT, CheckpointStore

log = logging.getLogger(__name__)

MB = 1_000_000


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ChangeRecorder:
    """The checkpoints of one agent's turns (core.tools.jail.ChangeObserver).

    `begin` names the conversation and turn; every change after it is kept under them.
    The previous state is stored before the file is touched, so a crash between the two
    still leaves a way back. A file bigger than the whole budget is marked NOT_KEPT (the
    undo says so) rather than evicting everything else.
    """

    def __init__(self, store: CheckpointStore, workspace: Path, budget_mb: int) -> None:
        self.store = store
        self.workspace = str(workspace)
        self.budget_bytes = budget_mb * MB
        self.conversation_id: str | None = None
        self.turn = 0
        self.call_id: str | None = None  # the tool call running (set by the agent)
        self._seen: set[str] = set()  # files whose previous state this turn has kept
        self._lock = threading.Lock()  # tools write from worker threads
        self._notices: list[str] = []

    def begin(self, conversation_id: str, turn: int) -> None:
        with self._lock:
            self.conversation_id, self.turn = conversation_id, turn
            self._seen = set()

    # --- ChangeObserver ------------------------------------------------------------------

    def before_change(self, rel: str, previous: Callable[[], bytes | None], size: int) -> None:
        with self._lock:
            if self.conversation_id is None or rel in self._seen:
                return
            self._seen.add(rel)
            try:
                if size < 0 or size > self.budget_bytes:
                    state: str | None = NOT_KEPT
                else:
                    data = previous()
                    state = None if data is None else self._keep(data)
                self.store.record_before(
                    self.conversation_id, self.turn, self.workspace, rel, state, self.call_id
                )
            except Exception as exc:  # a full disk, a locked index: the write still goes on
                self._failed(rel, exc)

    def after_change(self, rel: str, data: bytes | None) -> None:
        with self._lock:
            if self.conversation_id is None:
                return
            try:
                if data is None:
                    state: str | None = None
                elif len(data) > self.budget_bytes:
                    state = NOT_KEPT
                else:
                    state = self._keep(data)
                self.store.record_after(self.conversation_id, self.turn, rel, state)
                self._evict()
            except Exception as exc:
                self._failed(rel, exc)

    # --- the agent's side ----------------------------------------------------------------

    def take_notices(self) -> list[str]:
        with self._lock:
            notices, self._notices = self._notices, []
        return notices

    def _failed(self, rel: str, exc: Exception) -> None:
        log.warning("checkpoint of %s failed", rel, exc_info=exc)
        self._notices.append(
            _(
                "Le point de restauration de {path} n'a pas pu être enregistré ({error}) : "
                "cette modification ne pourra peut-être pas être annulée."
            ).format(path=rel, error=exc)
        )

    def _keep(self, data: bytes) -> str:
        digest = digest_of(data)
        self.store.put_blob(digest, data)
        return digest

    def _evict(self) -> None:
        assert self.conversation_id is not None
        dropped = self.store.evict(self.budget_bytes, (self.conversation_id, self.turn))
        if dropped:
            self._notices.append(
                ngettext(
                    "Les points de restauration les plus anciens ont été supprimés pour rester "
                    "sous {mb} Mo (réglage « checkpoints_budget_mb ») : {n} tour ne "
                    "pourra plus être annulé.",
                    "Les points de restauration les plus anciens ont été supprimés pour rester "
                    "sous {mb} Mo (réglage « checkpoints_budget_mb ») : {n} tours ne "
                    "pourront plus être annulés.",
                    len(dropped),
                ).format(mb=self.budget_bytes // MB, n=len(dropped))
            )


def turn_number(history: list[ChatMessage]) -> int:
    """A turn's number in its conversation: how many messages the person wrote so far."""
    return sum(1 for m in history if m.role == "user" and m.origin == "user")
