"""The note an undo or a redo leaves in the conversation, so the model knows the files moved."""

from __future__ import annotations

from loki_desktop.core.changes.undo import Decide, UndoPlan, UndoRefused, UndoReport, apply
from loki_desktop.core.message_meta import MessageMeta, UndoNote
from loki_desktop.core.messages import ChatMessage
from loki_desktop.core.ports import CheckpointStore, ConversationStore


def note_message(undo: UndoPlan, report: UndoReport) -> ChatMessage | None:
    """A harness message (the model sees it next turn, the window shows a quiet note);
    None when no file moved."""
    if not report.restored:
        return None
    restored = [s.path for s in report.restored if s.target is not None]
    removed = [s.path for s in report.restored if s.target is None]
    left = [s.path for s in report.left] + [s.path for s, _why in report.failed]
    if undo.direction == "undo":
        lines = [f"[Note from Loki: the user undid the file changes of turn {undo.turn}."]
        if restored:
            lines.append("Back to their content before that turn: " + ", ".join(restored) + ".")
        if removed:
            lines.append("Removed (that turn had created them): " + ", ".join(removed) + ".")
    else:
        lines = [f"[Note from Loki: the user redid the file changes of turn {undo.turn}."]
        if restored:
            lines.append("Back to the content that turn wrote: " + ", ".join(restored) + ".")
        if removed:
            lines.append("Removed again (that turn had deleted them): " + ", ".join(removed) + ".")
    if left:
        lines.append("Left as they are now (changed since): " + ", ".join(left) + ".")
    lines.append("Read a file again before changing it.]")
    note = UndoNote(undo.direction, undo.turn, tuple(restored), tuple(removed), tuple(left))
    return ChatMessage("user", "\n".join(lines), origin="harness", meta=MessageMeta(undo=note))


def remember(store: ConversationStore, undo: UndoPlan, report: UndoReport) -> bool:
    """Store the note in the conversation (the caller holds its turn lock, taken before the
    files moved). False when no file moved or the conversation is gone."""
    message = note_message(undo, report)
    if message is None or not store.exists(undo.conversation_id):
        return False
    store.append(undo.conversation_id, message)
    return True


def apply_and_note(
    checkpoints: CheckpointStore,
    history: ConversationStore,
    undo: UndoPlan,
    decide: Decide | None = None,
) -> tuple[UndoReport, bool]:
    """Apply the plan under the conversation's turn lock (no turn writes meanwhile), then
    leave the note. Returns the report and whether the note was stored. Raises UndoRefused
    while a turn runs in the conversation."""
    from loki_desktop.core.i18n import _

    lock = None
    if history.exists(undo.conversation_id):
        lock = history.lock_turn(undo.conversation_id)
        if lock is None:
            raise UndoRefused(
                _("Un tour est en cours dans cette conversation : réessayez quand il sera fini.")
            )
    try:
        report = apply(checkpoints, undo, decide)
        noted = remember(history, undo, report) if lock is not None else False
    finally:
        if lock is not None:
            lock.release()
    return report, noted
