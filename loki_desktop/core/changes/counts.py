"""What a turn did to each file, for people: added, modified or deleted, and +N −M lines."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal

from loki_desktop.core.ports import NOT_KEPT, CheckpointStore, FileCheckpoint, TurnCheckpoint

Kind = Literal["added", "modified", "deleted"]
# Counting lines of bigger files would cost more than the listing is worth.
COUNT_LIMIT_BYTES = 2_000_000


@dataclass(frozen=True, slots=True)
class FileSummary:
    path: str
    kind: Kind
    added: int | None  # None: binary, too big or not kept (no line counts)
    removed: int | None
    restored: bool
    kept: bool  # False: the previous state could not be kept (too big): no undo


def kind_of(change: FileCheckpoint) -> Kind:
    if change.before is None:
        return "added"
    if change.after is None:
        return "deleted"
    return "modified"


def summarize(store: CheckpointStore, turn: TurnCheckpoint) -> list[FileSummary]:
    return [_summary(store, change) for change in turn.files]


def _summary(store: CheckpointStore, change: FileCheckpoint) -> FileSummary:
    kept = NOT_KEPT not in (change.before, change.after)
    counts = _counts(store, change) if kept else None
    return FileSummary(
        path=change.path,
        kind=kind_of(change),
        added=counts[0] if counts else None,
        removed=counts[1] if counts else None,
        restored=change.restored,
        kept=kept,
    )


def _counts(store: CheckpointStore, change: FileCheckpoint) -> tuple[int, int] | None:
    try:
        before = _lines(store, change.before)
        after = _lines(store, change.after)
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return line_counts(before, after)


def _lines(store: CheckpointStore, digest: str | None) -> list[str]:
    if digest is None:
        return []
    data = store.read_blob(digest)
    if len(data) > COUNT_LIMIT_BYTES or b"\x00" in data:
        raise ValueError("not counted")
    return data.decode("utf-8").splitlines()


def line_counts(before: list[str], after: list[str]) -> tuple[int, int]:
    """Lines added and removed, as a unified diff counts them.
    (The diff cards compute the same; the two may share one function later.)"""
    added = removed = 0
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            removed += i2 - i1
        if tag in ("replace", "insert"):
            added += j2 - j1
    return added, removed
