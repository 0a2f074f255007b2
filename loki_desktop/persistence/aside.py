"""Keeping a corrupt file: it is moved aside under a dated name, never deleted."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path


def move_aside(path: Path, companions: Sequence[str] = ()) -> Path:
    """Rename `path` to `<stem>.corrupt-<date><suffix>` and return the new path.

    `companions` are suffixes of files that belong with it (SQLite's "-wal", "-shm"):
    they follow it under the new name when they exist.
    """
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.stem}.corrupt-{stamp}{path.suffix}")
    os.replace(path, target)
    for suffix in companions:
        side = Path(str(path) + suffix)
        if side.exists():
            os.replace(side, Path(str(target) + suffix))
    return target
