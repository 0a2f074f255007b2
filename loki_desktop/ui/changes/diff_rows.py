"""A unified diff as rows to show: each line's kind and its old and new line numbers."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

RowKind = Literal["hunk", "context", "added", "removed", "note"]
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


@dataclass(frozen=True, slots=True)
class DiffRow:
    kind: RowKind
    text: str  # the line as the diff has it, its +/-/space sign first (no line end)
    old: int | None = None  # line number in the old version
    new: int | None = None  # line number in the new version


def diff_rows(diff: str) -> list[DiffRow]:
    """The rows of a unified diff (difflib's or git's), its ---/+++ headers left out."""
    rows: list[DiffRow] = []
    old = new = 0
    in_hunk = False
    for line in diff.splitlines():
        hunk = _HUNK.match(line)
        if hunk:
            old, new = int(hunk.group(1)), int(hunk.group(2))
            # an empty side ("-0,0") starts before line 1
            old, new = max(old, 1), max(new, 1)
            rows.append(DiffRow("hunk", line))
            in_hunk = True
        elif not in_hunk:
            continue  # the --- / +++ headers
        elif line.startswith("+"):
            rows.append(DiffRow("added", line, new=new))
            new += 1
        elif line.startswith("-"):
            rows.append(DiffRow("removed", line, old=old))
            old += 1
        elif line.startswith("\\"):
            rows.append(DiffRow("note", line))
        else:
            rows.append(DiffRow("context", line, old=old, new=new))
            old += 1
            new += 1
    return rows
