"""Where the check corpus lives, and a snapshot of a folder to prove nothing was written."""

from __future__ import annotations

from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "checks"


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every entry under `folder` with its size and modification time."""
    return {
        path.relative_to(folder).as_posix(): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in sorted(folder.rglob("*"))
    }
