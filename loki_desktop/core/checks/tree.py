"""Which folders of a workspace hold files worth checking, and walking them."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

# Version control, dependencies, virtual environments, caches and build output:
# generated or vendored, never what the user or the agent is writing. Ambiguous names
# ("env", "out", "lib") stay watched: a virtual environment named "env" costs a few
# folders only, since its site-packages is skipped by name.
IGNORED_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", "bower_components", ".venv", "venv"}
    | {"__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".tox", ".nox", ".eggs"}
    | {"build", "dist", "target", ".next", ".nuxt", ".svelte-kit", ".parcel-cache"}
    | {".cache", ".gradle", ".idea", "site-packages"}
)


def is_ignored_dir(name: str) -> bool:
    return name in IGNORED_DIRS or name.endswith(".egg-info")


@dataclass
class Tree:
    """The folders under a top folder (itself included) and its checkable files."""

    dirs: list[str] = field(default_factory=list)
    files: list[tuple[int, Path]] = field(default_factory=list)  # (mtime_ns, path)


def walk(top: Path, can_check: Callable[[Path], bool] | None = None) -> Tree:
    """Every folder under `top` but ignored ones (symbolic links to folders are not
    followed), and with `can_check` the checkable files and their modification times."""
    tree = Tree()
    for folder, subdirs, names in os.walk(top):
        subdirs[:] = sorted(name for name in subdirs if not is_ignored_dir(name))
        tree.dirs.append(folder)
        if can_check is None:
            continue
        for name in names:
            path = Path(folder, name)
            if can_check(path):
                try:
                    tree.files.append((path.stat().st_mtime_ns, path))
                except OSError:
                    continue  # gone already, or a dangling link
    return tree
