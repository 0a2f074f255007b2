"""A tool call's arguments as readable JSON: indented, multi-line strings on their own lines."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from PySide6.QtGui import QFontDatabase, QTextOption

from loki_desktop.core.events import EVENT_ARG_PREVIEW, CutArgument
from loki_desktop.core.i18n import _
from loki_desktop.ui.chat.markdown_view import MessageText

INDENT = "  "


def pretty_arguments(args: Any) -> str:
    """JSON with two-space indents where a string's line breaks are real line breaks.

    `json.dumps(indent=2)` writes a file given to a tool as one line full of `\\n`; here each
    piece between two breaks is still escaped as JSON (quotes, backslashes, tabs), so the
    text reads as the value it is, and nothing is left out.
    """
    return _value(args, 0)


def _value(value: Any, depth: int) -> str:
    pad = INDENT * (depth + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{pad}{_string(str(k))}: {_value(v, depth + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + INDENT * depth + "}"
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        items = [pad + _value(v, depth + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + INDENT * depth + "]"
    if isinstance(value, str):
        return _string(value)
    return json.dumps(value, ensure_ascii=False)


def _string(text: str) -> str:
    pieces = [json.dumps(piece, ensure_ascii=False)[1:-1] for piece in text.split("\n")]
    return '"' + "\n".join(pieces) + '"'


def cut_note(cut: Sequence[CutArgument]) -> str:
    """Says which arguments a live card got only the start of (the history has them whole)."""
    return "\n".join(
        _(
            "« {name} » : seuls les {shown} premiers caractères sur {chars} sont montrés "
            "ici ; rouvrez la conversation pour tout voir."
        ).format(name=c.name, shown=EVENT_ARG_PREVIEW, chars=c.chars)
        for c in cut
    )


class ArgumentsView(MessageText):
    """The whole pretty-printed arguments, as tall as they are (never cut, no inner scroll)."""

    def __init__(self, args: dict[str, Any], cut_note: str = "") -> None:
        super().__init__()
        self.setObjectName("ToolArgsText")
        self.document().setDocumentMargin(6)  # inside the outline (counted in the height)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        # long unbroken values (a URL, base64) wrap anywhere rather than widen the card
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.text = pretty_arguments(args) + (f"\n\n{cut_note}" if cut_note else "")
        self.setPlainText(self.text)
