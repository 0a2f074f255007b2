"""A cheap look at the workspace before and after a shell command: which files it changed.

A command's changes cannot be checkpointed (it writes behind our back), but they can be
named: sizes and modification times of every file, skipping the folders the watcher
skips (core.checks.tree), compared before and after. Bounded: past MAX_FILES files the
look stops and says it saw only part of the workspace.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from loki_desktop.core.checks.tree import is_ignored_dir
from loki_desktop.core.events import ChangedFile
from loki_desktop.core.tools.text import cap

MAX_FILES = 50_000
# How many changed paths the model is told, in how many characters (the card gets them all).
MODEL_LIST_MAX = 30
MODEL_NOTE_CHARS = 1900


@dataclass(frozen=True, slots=True)
class Snapshot:
    files: dict[str, tuple[int, int]]  # workspace-relative path -> (size, mtime_ns)
    complete: bool  # False: stopped at MAX_FILES


def snapshot(root: Path, max_files: int = MAX_FILES) -> Snapshot:
    files: dict[str, tuple[int, int]] = {}
    for folder, subdirs, names in os.walk(root):
        subdirs[:] = [name for name in subdirs if not is_ignored_dir(name)]
        rel_folder = os.path.relpath(folder, root)
        for name in names:
            if len(files) >= max_files:
                return Snapshot(files, complete=False)
            try:
                info = os.lstat(os.path.join(folder, name))
            except OSError:
                continue  # gone meanwhile
            rel = name if rel_folder == "." else f"{rel_folder}/{name}".replace(os.sep, "/")
            files[rel] = (info.st_size, info.st_mtime_ns)
    return Snapshot(files, complete=True)


def compare(before: Snapshot, after: Snapshot) -> list[ChangedFile]:
    changed = [
        ChangedFile(path, "modified" if path in before.files else "added")
        for path, state in after.files.items()
        if before.files.get(path) != state
    ]
    if before.complete and after.complete:  # an incomplete look cannot tell a removal
        changed += [
            ChangedFile(path, "deleted") for path in before.files if path not in after.files
        ]
    return sorted(changed, key=lambda c: c.path)


def model_note(changed: list[ChangedFile]) -> str:
    """The line the model reads after the command's output (English)."""
    if not changed:
        return ""
    shown = ", ".join(f"{c.path} ({c.kind})" for c in changed[:MODEL_LIST_MAX])
    if len(changed) > MODEL_LIST_MAX:
        shown += f", and {len(changed) - MODEL_LIST_MAX} more"
    return cap(f"\n[files changed by the command: {shown}]", MODEL_NOTE_CHARS)
