"""The workspace jail: every path a tool touches resolves inside one folder."""

from __future__ import annotations

from pathlib import Path


class JailError(Exception):
    """A path was refused; the message says why, for the model."""


# Folders no tool may read or write: a repository's internals are not the agent's to edit.
FORBIDDEN_PARTS = frozenset({".git"})


def is_forbidden_part(name: str) -> bool:
    """Case-insensitively: on macOS and Windows disks `.GIT/hooks` is the real .git."""
    return name.casefold() in FORBIDDEN_PARTS


class Workspace:
    """A folder that jails every file tool.

    `resolve` follows symlinks before deciding, so a link that leads outside
    (to a file or a folder, dangling or not) is refused like any other escape.
    """

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root).resolve(strict=True)
        if not self.root.is_dir():
            raise NotADirectoryError(str(self.root))

    def resolve(self, raw: str) -> Path:
        if "\x00" in raw:
            raise JailError("the path contains a NUL byte")
        if not raw.strip():
            raise JailError("the path is empty")
        candidate = Path(raw)
        if not candidate.is_absolute():
            candidate = self.root / candidate
        try:
            resolved = candidate.resolve(strict=False)
        except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop on 3.11
            raise JailError(f"cannot resolve '{raw}': {exc}") from None
        if not resolved.is_relative_to(self.root):
            raise JailError(f"'{raw}' is outside the workspace ({self.root})")
        relative = resolved.relative_to(self.root)
        if any(is_forbidden_part(part) for part in relative.parts):
            raise JailError(f"'{raw}' is inside .git, which tools may not touch")
        return resolved

    def relative(self, path: Path) -> str:
        """The workspace-relative form of a resolved path, with forward slashes."""
        rel = path.relative_to(self.root).as_posix()
        return rel or "."
