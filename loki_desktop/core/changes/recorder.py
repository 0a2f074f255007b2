"""Keeps each file's state before a turn changes it: the jail calls it around every write.

The rule: no write without its way back. When the previous state of a file cannot be kept
(a full disk, the budget, a folder that refuses writes), `before_change` raises
CheckpointRefused and the jail makes no change; the person may then allow that one write
without a way back (`CheckpointRefused.allow_once`).
"""

from __future__ import annotations

import errno
import hashlib
import logging
import threading
from collections.abc import Callable
from pathlib import Path

from loki_desktop.core.i18n import _, ngettext
from loki_desktop.core.messages import ChatMessage
from loki_desktop.core.ports import NOT_KEPT, CheckpointStore
from loki_desktop.core.tools.jail import CheckpointRefused

log = logging.getLogger(__name__)

MB = 1_000_000


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ChangeRecorder:
    """The checkpoints of one agent's turns (core.tools.jail.ChangeObserver).

    `begin` names the conversation and turn; every change after it is kept under them.
    The previous state, and the digest of the state the write will leave, are stored before
    the file is touched: a crash, or a history that cannot be written afterwards, still
    leaves the change undoable at the next start.
    """

    def __init__(self, store: CheckpointStore, workspace: Path, budget_mb: int) -> None:
        self.store = store
        self.workspace = str(workspace)
        self.budget_bytes = budget_mb * MB
        self.conversation_id: str | None = None
        self.turn = 0
        self.call_id: str | None = None  # the tool call running (set by the agent)
        self._seen: set[str] = set()  # files whose previous state this turn has kept
        self._unkept_ok: set[str] = set()  # files the person let be written once, unkept
        self._lock = threading.Lock()  # tools write from worker threads
        self._notices: list[str] = []

    def begin(self, conversation_id: str, turn: int) -> None:
        with self._lock:
            self.conversation_id, self.turn = conversation_id, turn
            self._seen = set()
            self._unkept_ok = set()

    # --- ChangeObserver ------------------------------------------------------------------

    def before_change(
        self, rel: str, previous: Callable[[], bytes | None], size: int, new: bytes | None
    ) -> None:
        """Keep `rel`'s way back, or raise CheckpointRefused (the write must not happen)."""
        with self._lock:
            if self.conversation_id is None:
                return
            after = None if new is None else digest_of(new)
            unkept_ok = rel in self._unkept_ok
            self._unkept_ok.discard(rel)
            try:
                if rel in self._seen:  # its first state is kept: only the state it leaves
                    self.store.record_after(self.conversation_id, self.turn, rel, after)
                    return
                state = NOT_KEPT if unkept_ok else self._previous(rel, previous, size)
                self.store.record_before(
                    self.conversation_id,
                    self.turn,
                    self.workspace,
                    rel,
                    state,
                    self.call_id,
                    after=after,
                )
            except CheckpointRefused:
                raise
            except Exception as exc:
                if not unkept_ok:
                    raise self._refused(rel, exc) from None
                log.info("checkpoint of %s not recorded (allowed once)", rel)
                return
            self._seen.add(rel)

    def after_change(self, rel: str, data: bytes | None) -> None:
        """Keep the bytes the turn left (for a redo); the undo needs only their digest,
        recorded before the write, so a failure here costs the redo alone."""
        with self._lock:
            if self.conversation_id is None or data is None:
                return
            try:
                if len(data) <= self.budget_bytes:
                    self.store.put_blob(digest_of(data), data)
                self._evict()
            except Exception as exc:
                log.info("checkpoint after %s not kept: %s", rel, exc)
                self._notices.append(
                    _(
                        "Le nouvel état de {path} n'a pas pu être gardé ({error}) : la "
                        "modification pourra être annulée, mais pas rétablie ensuite."
                    ).format(path=rel, error=_reason(exc))
                )

    # --- the agent's side ----------------------------------------------------------------

    def take_notices(self) -> list[str]:
        with self._lock:
            notices, self._notices = self._notices, []
        return notices

    def _previous(self, rel: str, previous: Callable[[], bytes | None], size: int) -> str | None:
        """The digest of `rel`'s current bytes, kept; raises CheckpointRefused."""
        if size < 0:
            raise self._refusal(
                rel,
                "it is not a regular file (a pipe, a socket or a device), so its current "
                "state cannot be saved",
                _("{path} n'est pas un fichier ordinaire : son état ne peut pas être gardé"),
            )
        if size > self.budget_bytes:
            raise self._refusal(
                rel,
                f"its current state ({_mb(size)} MB) is bigger than the checkpoint budget "
                f"({_mb(self.budget_bytes)} MB)",
                _(
                    "son état actuel ({size} Mo) dépasse le budget des points de restauration "
                    "({budget} Mo, réglage « checkpoints_budget_mb »)"
                ),
                size=_mb(size),
                budget=_mb(self.budget_bytes),
            )
        data = previous()
        if data is None:
            return None
        if len(data) > self.budget_bytes:  # it grew since it was measured
            return self._previous(rel, previous, len(data))
        digest = digest_of(data)
        self.store.put_blob(digest, data)
        return digest

    def _refused(self, rel: str, exc: Exception) -> CheckpointRefused:
        log.info("checkpoint of %s failed: %s", rel, exc)
        return self._refusal(
            rel,
            f"its current state could not be saved ({_english(exc)})",
            _("son état actuel n'a pas pu être gardé ({error})"),
            error=_reason(exc),
        )

    def _refusal(self, rel: str, why: str, shown: str, **values: object) -> CheckpointRefused:
        for_model = (
            f"{rel} was NOT written: {why}, and Loki never changes a file it could not "
            "undo. Tell the user; they can allow this one write without undo, or free "
            "space. Do not retry the same write."
        )
        sentence = _(
            "{path} n'a pas été écrit : {why}, et la modification n'aurait pas pu être annulée."
        ).format(path=rel, why=shown.format(path=rel, **values))
        return CheckpointRefused(rel, for_model, sentence, lambda: self._allow(rel))

    def _allow(self, rel: str) -> None:
        with self._lock:
            self._unkept_ok.add(rel)

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


def _mb(size: int) -> str:
    return f"{size / MB:.1f}".rstrip("0").rstrip(".")


def _english(exc: Exception) -> str:
    if isinstance(exc, OSError) and exc.errno is not None:
        return errno.errorcode.get(exc.errno, str(exc.errno)) + f": {exc.strerror}"
    return f"{type(exc).__name__}: {exc}"


def _reason(exc: Exception) -> str:
    """The cause in the person's words (a full disk is the common one)."""
    if isinstance(exc, OSError):
        if exc.errno == errno.ENOSPC:
            return _("plus de place sur le disque")
        if exc.errno == errno.EDQUOT:
            return _("quota disque dépassé")
        if exc.errno in (errno.EACCES, errno.EPERM):
            return _("permission refusée")
        if exc.errno == errno.EROFS:
            return _("disque en lecture seule")
    text = str(exc)
    if "database or disk is full" in text:
        return _("plus de place sur le disque")
    if "readonly database" in text:
        return _("disque en lecture seule")
    return text or type(exc).__name__


def turn_number(history: list[ChatMessage]) -> int:
    """A turn's number in its conversation: how many messages the person wrote so far."""
    return sum(1 for m in history if m.role == "user" and m.origin == "user")
