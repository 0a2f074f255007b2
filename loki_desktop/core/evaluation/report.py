"""Totals per model and harness mode, as the `summary` event and a Markdown table."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loki_desktop.core.evaluation.runner import Harness, TaskResult
from loki_desktop.core.i18n import _


@dataclass(frozen=True, slots=True)
class Summary:
    model: str
    harness: Harness
    passed: int
    total: int
    tool_calls: int
    valid_tool_calls: int
    rounds: int
    seconds: float
    tokens: int

    @property
    def pass_rate(self) -> float:
        return self.passed / self.total if self.total else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "harness": self.harness,
            "passed": self.passed,
            "total": self.total,
            "pass_rate": round(self.pass_rate, 4),
            "tool_calls": self.tool_calls,
            "valid_tool_calls": self.valid_tool_calls,
            "rounds": self.rounds,
            "seconds": round(self.seconds, 1),
            "tokens": self.tokens,
        }


def summarize(results: Iterable[TaskResult]) -> list[Summary]:
    groups: dict[tuple[str, Harness], list[TaskResult]] = {}
    for result in results:
        groups.setdefault((result.model, result.harness), []).append(result)
    return [
        Summary(
            model,
            harness,
            sum(r.passed for r in group),
            len(group),
            sum(r.tool_calls for r in group),
            sum(r.valid_tool_calls for r in group),
            sum(r.rounds for r in group),
            sum(r.seconds for r in group),
            sum(r.tokens for r in group),
        )
        for (model, harness), group in groups.items()
    ]


def summary_event(summaries: list[Summary]) -> dict[str, Any]:
    return {"type": "summary", "results": [s.to_json() for s in summaries]}


def markdown_table(summaries: list[Summary], results: list[TaskResult]) -> str:
    lines = [
        _(
            "| Modèle | Harnais | Réussies | Taux de réussite | Appels d'outils valides | Tours "
            "| Temps | Jetons |"
        ),
        "|---|---|---|---|---|---|---|---|",
    ]
    for s in summaries:
        lines.append(
            f"| {s.model} | {s.harness} | {s.passed}/{s.total} | {s.pass_rate:.0%} | "
            f"{s.valid_tool_calls}/{s.tool_calls} | {s.rounds} | {s.seconds:.0f} s | {s.tokens} |"
        )
    kinds = sorted({r.kind for r in results})
    if kinds and summaries:
        lines += ["", _("| Modèle | Harnais |") + " " + " | ".join(kinds) + " |"]
        lines.append("|---|---|" + "---|" * len(kinds))
        for s in summaries:
            mine = [r for r in results if r.model == s.model and r.harness == s.harness]
            cells = []
            for kind in kinds:
                of_kind = [r for r in mine if r.kind == kind]
                cells.append(f"{sum(r.passed for r in of_kind)}/{len(of_kind)}")
            lines.append(f"| {s.model} | {s.harness} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def keep_results(folder: Path, results: list[TaskResult]) -> None:
    """Write last.json (the summary and every task) and last.md (the table) in `folder`."""
    summaries = summarize(results)
    folder.mkdir(parents=True, exist_ok=True)
    data = {**summary_event(summaries), "tasks": [r.to_json() for r in results]}
    (folder / "last.json").write_text(json.dumps(data, ensure_ascii=False, indent=1), "utf-8")
    (folder / "last.md").write_text(markdown_table(summaries, results), "utf-8")


def load_last(folder: Path) -> list[dict[str, Any]]:
    """The summary results of the last run kept in `folder` (empty when none or unreadable)."""
    try:
        data = json.loads((folder / "last.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    results = data.get("results") if isinstance(data, dict) else None
    return [r for r in results if isinstance(r, dict)] if isinstance(results, list) else []
