"""What a check of one file found."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from loki_desktop.core.events import Problem


@dataclass(frozen=True, slots=True)
class CheckResult:
    """Problems found in one file. `skipped` says why it was not (fully) checked.

    `unreadable` marks a file that could not be read at all (missing, a folder, no
    permission): `skipped` then says why, and there are no problems.
    """

    problems: tuple[Problem, ...] = ()
    skipped: str | None = None
    unreadable: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems


class Checker(Protocol):
    """What the run_check tool and the watcher need (core.checks.registry.Checkers is one)."""

    def can_check(self, path: Path) -> bool: ...

    async def check(self, path: Path, root: Path | None) -> CheckResult: ...
