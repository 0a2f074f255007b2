"""A measured figure, its budget, and the table that prints them."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Figure:
    """One number against its budget. `lower_is_better` decides what "within budget" means."""

    area: str
    name: str
    value: float
    unit: str
    budget: float | None
    lower_is_better: bool = True
    runs: int = 1
    note: str = ""
    samples: list[float] = field(default_factory=list)

    @property
    def met(self) -> bool | None:
        if self.budget is None:
            return None
        return self.value <= self.budget if self.lower_is_better else self.value >= self.budget

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["met"] = self.met
        return data


def median_of(samples: Iterable[float]) -> float:
    return statistics.median(list(samples))


def repeat(times: int, measure: Callable[[], float]) -> list[float]:
    return [measure() for _ in range(times)]


def render_table(figures: list[Figure]) -> str:
    header = ("Area", "Figure", "Median", "Budget", "OK", "Runs", "Note")
    rows = [header]
    for fig in figures:
        op = "<=" if fig.lower_is_better else ">="
        budget = f"{op} {_fmt(fig.budget)} {fig.unit}" if fig.budget is not None else "-"
        ok = {True: "yes", False: "NO", None: "-"}[fig.met]
        rows.append(
            (
                fig.area,
                fig.name,
                f"{_fmt(fig.value)} {fig.unit}",
                budget,
                ok,
                str(fig.runs),
                fig.note,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = [
        "| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) + " |"
        for row in rows
    ]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"
