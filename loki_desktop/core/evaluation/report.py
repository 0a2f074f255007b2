"""Totals per model and harness mode, as the `summary` event and a Markdown table."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loki_desktop.core.evaluation.runner import Harness, TaskEnd, TaskResult
from loki_desktop.core.i18n import _, ngettext


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


def summary_event(
    summaries: list[Summary], results: list[TaskResult] | None = None
) -> dict[str, Any]:
    """The `summary` line; with the results, `ends` (tasks by how they ended, per model and
    harness) and `differences` (why the harness scored lower, when it did)."""
    event: dict[str, Any] = {"type": "summary", "results": [s.to_json() for s in summaries]}
    if results is not None:
        event["ends"] = [_ends_of(s, results) for s in summaries]
        event["differences"] = harness_gap(results)
    return event


def _ends_of(summary: Summary, results: list[TaskResult]) -> dict[str, Any]:
    counts: dict[str, int] = {}
    for r in results:
        if r.model == summary.model and r.harness == summary.harness:
            counts[r.end] = counts.get(r.end, 0) + 1
    return {"model": summary.model, "harness": summary.harness, **counts}


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
    if results:
        lines += ["", ends_table(results).rstrip("\n")]
    if gap := harness_gap(results):
        lines += ["", *gap]
    return "\n".join(lines) + "\n"


def keep_results(folder: Path, results: list[TaskResult]) -> None:
    """Write last.json (the summary and every task) and last.md (the table) in `folder`."""
    summaries = summarize(results)
    folder.mkdir(parents=True, exist_ok=True)
    data = {**summary_event(summaries, results), "tasks": [r.to_json() for r in results]}
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


def end_label(end: TaskEnd) -> str:
    labels: dict[TaskEnd, str] = {
        "passed": _("réussie"),
        "failed_check": _("vérification échouée"),
        "timeout": _("temps écoulé"),
        "repetition": _("répétition"),
        "length": _("longueur maximale"),
        "empty_answer": _("aucune réponse"),
        "server_error": _("erreur du serveur"),
    }
    return labels[end]


def ends_table(results: list[TaskResult]) -> str:
    """One line per task: how it ended, the tool calls the model made, the tokens it
    produced, and the notices it got (by code)."""
    lines = [
        _("| Modèle | Harnais | Tâche | Fin | Appels d'outils | Jetons produits | Notes |"),
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        notes = ", ".join(f"{code} ×{count}" for code, count in r.notices) or "—"
        lines.append(
            f"| {r.model} | {r.harness} | {r.task} | {end_label(r.end)} | {r.tool_calls} | "
            f"{r.answer_tokens} | {notes} |"
        )
    return "\n".join(lines) + "\n"


def harness_gap(results: list[TaskResult]) -> list[str]:
    """When a model scores lower with the harness on than off: where the two runs differed
    (for each model measured both ways)."""
    sentences = []
    for model in dict.fromkeys(r.model for r in results):
        on = {r.task: r for r in results if r.model == model and r.harness == "on"}
        off = {r.task: r for r in results if r.model == model and r.harness == "off"}
        if (
            not on
            or not off
            or sum(r.passed for r in on.values()) >= sum(r.passed for r in off.values())
        ):
            continue
        sentences.append(
            _(
                "« {model} » réussit moins avec le harnais ({on}/{n_on}) que sans ({off}/{n_off})."
            ).format(
                model=model,
                on=sum(r.passed for r in on.values()),
                n_on=len(on),
                off=sum(r.passed for r in off.values()),
                n_off=len(off),
            )
        )
        sentences += _gap_details(list(on.values()), off)
    return sentences


def _gap_details(on: list[TaskResult], off: dict[str, TaskResult]) -> list[str]:
    details = []
    lost = [r.task for r in on if not r.passed and off.get(r.task) and off[r.task].passed]
    if lost:
        details.append(
            _("Réussies sans le harnais, échouées avec : {tasks}.").format(tasks=", ".join(lost))
        )
    no_call = sum(1 for r in on if r.tool_calls == 0)
    if no_call:
        details.append(
            ngettext(
                "Avec le harnais, le modèle n'a fait aucun appel d'outil dans {n} tâche sur "
                "{total}.",
                "Avec le harnais, le modèle n'a fait aucun appel d'outil dans {n} tâches sur "
                "{total}.",
                no_call,
            ).format(n=no_call, total=len(on))
        )
    if any(_noted(r, "system_folded") for r in on):
        details.append(
            _(
                "Le gabarit du modèle (son template) n'a pas de place pour les consignes : "
                "Loki les a mises dans le premier message."
            )
        )
    if any(_noted(r, "base_model") for r in on):
        details.append(_("Ce modèle n'est pas fait pour la conversation (modèle de base)."))
    for end in ("repetition", "length", "timeout"):
        ended = [r for r in on if r.end == end]
        if ended:
            details.append(
                _("Fin « {end} » avec le harnais : {tasks}.").format(
                    end=end_label(ended[0].end), tasks=", ".join(r.task for r in ended)
                )
            )
    return details


def _noted(result: TaskResult, code: str) -> bool:
    return any(c == code for c, _count in result.notices)
