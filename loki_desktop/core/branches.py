"""Branches of a conversation: where an edit or a regenerated answer branches off, moving
between versions, and what the files of a branch left behind still hold.

A conversation is a tree of messages; the store shows one path of it (ports.ConversationStore).
Turn numbers are never reused across branches (ChatMessage.turn), so the checkpoints of the
files a turn changed stay keyed by (conversation, turn) whatever branch is shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from loki_desktop.core.i18n import _
from loki_desktop.core.messages import ChatMessage
from loki_desktop.core.ports import CheckpointStore, ConversationStore, TurnCheckpoint, TurnLock


class BranchBusy(Exception):
    """A branch change asked while a turn of the conversation runs (one sentence)."""


def is_persons(message: ChatMessage) -> bool:
    """A message the person wrote (not the harness's follow-ups and notes)."""
    return message.role == "user" and message.origin == "user"


def branch_point(path: Sequence[ChatMessage], message_id: int | None) -> int | None:
    """The index in `path` of the person's message `message_id` (None: their last one), or
    None when it is not one of the person's messages of that path."""
    for index in range(len(path) - 1, -1, -1):
        message = path[index]
        if (message_id is None or message.id == message_id) and is_persons(message):
            return index
        if message.id == message_id:
            return None
    return None


class NotPersons(ValueError):
    """A message to edit or answer again that is not one of the person's (one sentence)."""


def rewind_at(
    store: ConversationStore,
    checkpoints: CheckpointStore | None,
    conversation_id: str,
    message_id: int | None,
    kind: str,
) -> LeftBehind:
    """End the branch shown where a new one starts (the turn lock held by the caller): at
    the person's message `message_id` for a regenerated answer ("regenerate"), just before
    it for an edited one ("edit"). Returns the file changes the branch left behind (to be
    said, with their undo offered); raises NotPersons."""
    path = store.messages(conversation_id)
    index = branch_point(path, message_id)
    if index is None:
        raise NotPersons(_("Ce message ne peut pas être renvoyé : ce n'est pas l'un des vôtres."))
    keep = index if kind == "regenerate" else index - 1
    store.rewind(conversation_id, path[keep].id if keep >= 0 else None)
    if checkpoints is None:
        return LeftBehind(())
    return left_behind(checkpoints, conversation_id, path, path[: keep + 1])


def branch_off(
    store: ConversationStore,
    checkpoints: CheckpointStore | None,
    conversation_id: str,
    message_id: int | None,
    kind: str,
) -> LeftBehind:
    """rewind_at under the conversation's turn lock (the window's edit and regenerate, before
    their turn starts); raises BranchBusy while a turn runs there."""
    held = _lock(store, conversation_id)
    try:
        return rewind_at(store, checkpoints, conversation_id, message_id, kind)
    finally:
        held.release()


def _lock(store: ConversationStore, conversation_id: str) -> TurnLock:
    held = store.lock_turn(conversation_id)
    if held is None:
        raise BranchBusy(
            _(
                "Une réponse est en cours dans cette conversation : attendez qu'elle se "
                "termine (ou arrêtez-la) avant de changer de version."
            )
        )
    return held


def switch_branch(store: ConversationStore, conversation_id: str, message_id: int) -> None:
    """Show the branch through `message_id`. Refused (BranchBusy) while a turn of the
    conversation runs, here or in another process: the turn writes to the branch shown."""
    held = _lock(store, conversation_id)
    try:
        store.switch_branch(conversation_id, message_id)
    finally:
        held.release()


def sibling(store: ConversationStore, conversation_id: str, message_id: int, step: int) -> int:
    """The version `step` places before (-1) or after (+1) `message_id`, clamped to the
    ends ("< 2/3 >"); `message_id` itself when it has no other version."""
    versions = store.branches(conversation_id).get(message_id)
    if versions is None:
        return message_id
    index = min(max(versions.index + step, 0), len(versions.ids) - 1)
    return versions.ids[index]


@dataclass(frozen=True, slots=True)
class LeftBehind:
    """The file changes of a branch no longer shown that are still in the files."""

    turns: tuple[TurnCheckpoint, ...]

    @property
    def paths(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for turn in self.turns:
            for change in turn.files:
                if not change.restored:
                    seen.setdefault(change.path)
        return tuple(seen)


def left_behind(
    checkpoints: CheckpointStore,
    conversation_id: str,
    before: Sequence[ChatMessage],
    after: Sequence[ChatMessage],
) -> LeftBehind:
    """The turns of the branch shown `before` a change that are not on the one shown
    `after` it and whose file changes were not undone (the person is told, and offered
    their undo: nothing is undone silently)."""
    gone = {m.turn for m in before if m.turn} - {m.turn for m in after if m.turn}
    turns = tuple(
        turn
        for turn in checkpoints.turns(conversation_id)
        if turn.turn in gone and any(not change.restored for change in turn.files)
    )
    return LeftBehind(turns)


def left_behind_notice(left: LeftBehind) -> str | None:
    """One sentence naming the files the abandoned branch changed (None: none)."""
    paths = left.paths
    if not paths:
        return None
    turns = ", ".join(str(turn.turn) for turn in left.turns)
    return _(
        "La version quittée avait modifié {files} (tour {turns}) : ces modifications restent "
        "dans vos fichiers ; annulez-les avec le bouton Annuler de ce tour ou « loki-desktop "
        "undo --session {id} --turn N »."
    ).format(files=", ".join(paths), turns=turns, id=left.turns[0].conversation_id)
