"""Approval without a person to ask: the CLI's `--allow-shell` / `--allow-writes`, scripted uses."""

from __future__ import annotations

from pathlib import Path

from loki_desktop.core.file_change import FileChange


class FixedApprover:
    """Headless approval: every shell command is allowed, or none is (`--allow-shell`).

    Writes are asked about only when the "Demander avant d'écrire" setting is on
    (`review_writes`); headless, they are then all allowed (`--allow-writes`) or all refused,
    as shell commands are. A write whose checkpoint cannot be kept is refused unless the
    command was given `--write-without-undo`.
    """

    def __init__(self, allow: bool, allow_writes: bool = False, allow_unkept: bool = False) -> None:
        self.allow = allow
        self.allow_writes = allow_writes
        self.allow_unkept = allow_unkept  # --write-without-undo, chosen for this command

    async def approve_shell(self, command: str, cwd: Path) -> bool:
        return self.allow

    async def approve_write(self, change: FileChange, cwd: Path) -> bool:
        return self.allow_writes

    async def approve_unkept_write(self, path: str, reason: str, cwd: Path) -> bool:
        return self.allow_unkept
