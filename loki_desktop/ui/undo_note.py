"""What the window shows for the note an undo or a redo left in the conversation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from loki_desktop.core.i18n import _


def undo_note_text(extra: Mapping[str, Any]) -> str | None:
    """The person's words for a stored undo note (None: the message is no undo note)."""
    note = extra.get("undo")
    if not isinstance(note, dict):
        return None
    turn = note.get("turn", "?")
    files = [str(p) for key in ("restored", "removed") for p in note.get(key) or []]
    if note.get("direction") == "redo":
        text = _("Modifications du tour {turn} rétablies : {files}.")
    else:
        text = _("Modifications du tour {turn} annulées : {files}.")
    shown = text.format(turn=turn, files=", ".join(files))
    left = [str(p) for p in note.get("left") or []]
    if left:
        shown += "\n" + _("Laissés tels quels (modifiés depuis) : {files}").format(
            files=", ".join(left)
        )
    return shown
