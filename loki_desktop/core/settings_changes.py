"""What a holder of a settings copy changed since it read them, laid over the file's content."""

from __future__ import annotations

import copy
from dataclasses import fields
from typing import Any

from loki_desktop.core.settings import Settings

Snapshot = dict[str, Any]


def snapshot(settings: Settings) -> Snapshot:
    """The settings as read, kept apart from the copy that is then changed in place."""
    return copy.deepcopy(settings.to_json())


def lay_changes(
    read: Snapshot, changed: Settings, current: Settings, *, leave: frozenset[str] = frozenset()
) -> None:
    """Set on `current` (the file's content now) what `changed` changed since `read`, field
    by field and, inside an object (`ui`, `tool_modes`), key by key: what another writer
    changed meanwhile stays unless this holder changed the same value. Lists are taken
    whole. Fields in `leave` belong to another writer and are never set from here."""
    for name, value in changed.to_json().items():
        if name in leave or value == read.get(name):
            continue
        setattr(current, name, _merged(read.get(name), value, getattr(current, name)))


def take_in(holder: Settings, written: Settings) -> None:
    """Make `holder` equal to `written` in place (widgets keep their reference to it)."""
    for f in fields(Settings):
        setattr(holder, f.name, copy.deepcopy(getattr(written, f.name)))


def _merged(read: Any, ours: Any, theirs: Any) -> Any:
    if not (isinstance(read, dict) and isinstance(ours, dict) and isinstance(theirs, dict)):
        return copy.deepcopy(ours)
    merged = dict(theirs)
    for key in read.keys() - ours.keys():  # removed by this holder
        merged.pop(key, None)
    for key, value in ours.items():
        if key not in read or value != read[key]:
            merged[key] = _merged(read.get(key), value, theirs.get(key))
    return merged
