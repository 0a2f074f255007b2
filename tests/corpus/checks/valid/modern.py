"""Valid modern Python: nothing here may be flagged (unused imports are not problems)."""

from __future__ import annotations

import os
import sys  # unused on purpose
from dataclasses import dataclass
from typing import TypeAlias

Number: TypeAlias = int | float


@dataclass(frozen=True, slots=True)
class Point:
    x: Number
    y: Number = 0


def describe(value: object, /, *, width: int = 10) -> str:
    match value:
        case Point(x=0, y=0):
            return "origin"
        case Point(x=x, y=y) if x == y:
            return f"diagonal {x!r:>{width}}"
        case [first, *rest]:
            return f"list starting with {first} and {len(rest)} more"
        case {"name": str(name), **others}:
            return f"{name=} {others}"
        case _:
            return f"{'nested ' + f'{value}'}"


async def gather_lines(paths: list[str]) -> list[str]:
    lines = []
    async for line in _lines(paths):
        if (stripped := line.strip()) and not stripped.startswith("#"):
            lines.append(stripped)
    return lines


async def _lines(paths: list[str]):
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                yield line


def groups() -> None:
    try:
        raise ExceptionGroup("many", [ValueError("a"), TypeError("b")])
    except* ValueError as found:
        print(found.exceptions)
    except* TypeError:
        pass


def counter():
    total = 0

    def add(step: int = 1) -> int:
        nonlocal total
        total += step
        return total

    return add


__all__ = ["Point", "describe", "gather_lines", "groups", "counter"]
print(os.sep, "\d is only a SyntaxWarning", 1 if True else 2)
