"""What a check of one file found."""

from __future__ import annotations

from dataclasses import dataclass

from loki_desktop.core.events import Problem


@dataclass(frozen=True, slots=True)
class CheckResult:
    """Problems found in one file. `skipped` says why it was not (fully) checked."""

    problems: tuple[Problem, ...] = ()
    skipped: str | None = None

    @property
    def ok(self) -> bool:
        return not self.problems
