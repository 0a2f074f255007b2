"""What the window shows for the note an undo or a redo left in the conversation."""

from __future__ import annotations

from loki_desktop.core.i18n import _
from loki_desktop.core.message_meta import UndoNote


def undo_note_text(note: UndoNote | None) -> str | None:
    """The person's words for a stored undo note (None: the message is no undo note)."""
    if note is None:
        return None
    turn = "?" if note.turn is None else note.turn
    files = [*note.restored, *note.removed]
    if note.direction == "redo":
        text = _("Modifications du tour {turn} rétablies : {files}.")
    else:
        text = _("Modifications du tour {turn} annulées : {files}.")
    shown = text.format(turn=turn, files=", ".join(files))
    if note.left:
        shown += "\n" + _("Laissés tels quels (modifiés depuis) : {files}").format(
            files=", ".join(note.left)
        )
    return shown
