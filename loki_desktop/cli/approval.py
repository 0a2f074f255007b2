"""Approval without a person to ask: the CLI's `--allow-shell`, and scripted uses."""

from __future__ import annotations

from pathlib import Path


class FixedApprover:
    """Headless approval: every shell command is allowed, or none is (`--allow-shell`)."""

    def __init__(self, allow: bool) -> None:
        self.allow = allow

    async def approve_shell(self, command: str, cwd: Path) -> bool:
        return self.allow
