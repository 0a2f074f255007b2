"""What a turn did to each file, for people: added, modified or deleted, and +N −M lines."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from loki_desktop.core.ports import NOT_KEPT, CheckpointStore, FileCheckpoint, TurnCheckpoint
from loki_desktop.core.tools.diffs import compute_change

Kind = Literal["added", "modified", "deleted"]


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
    """The same +N −M as the turn's diff cards (core.tools.diffs), from the stored blobs."""
    try:
        before = _blob(store, change.before)
        after = _blob(store, change.after)
    except OSError:
        return None
    counted = compute_change(change.path, before, after)
    if counted.omitted:  # binary, or too large to compare
        return None
    return counted.added, counted.removed


def _blob(store: CheckpointStore, digest: str | None) -> bytes | None:
    return None if digest is None else store.read_blob(digest)
