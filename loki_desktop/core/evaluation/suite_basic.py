"""The `basic` suite: 40 small agentic tasks a 7–14B model meets every day, read from basic/.

Kinds (one TOML file each in basic/): `file` (write exactly what was asked), `fix` (a bug,
found by the task's own tests, which must not be edited), `web` (a page valid with its links
resolved), `data` (a number from a CSV file, to be computed, not guessed), `tool` (facts only
a loopback page holds, read with the Fetch tool). Prompts are in French like our first
users'; a few in English.

A task is a `[[task]]` table: `id`, `prompt`, `answer` (the reference model's last words),
optional `page` and `time_limit_s`, its graders as `[[task.check]]` tables (`is` names the
grader, the other keys are its fields), the reference's tool rounds as `[[task.round]]`
tables of `[[task.round.call]]` (`tool` names it, the other keys are its arguments), and the
starting workspace as `[task.files]` (path = content).
"""

from __future__ import annotations

import tomllib
from importlib.resources import files
from typing import Any

from loki_desktop.core.evaluation.tasks import (
    AnswerContains,
    AnswerNumber,
    EvalTask,
    FileContains,
    FileEquals,
    Grader,
    HtmlValid,
    Reference,
    ReferenceCall,
    TestsPass,
)

FETCH_TOOL = "mcp_web_fetch"
KINDS = ("file", "fix", "web", "data", "tool")  # the order the suite runs them in

_GRADERS: dict[str, type[Grader]] = {
    "file_equals": FileEquals,
    "file_contains": FileContains,
    "tests_pass": TestsPass,
    "html_valid": HtmlValid,
    "answer_number": AnswerNumber,
    "answer_contains": AnswerContains,
}


def _grader(table: dict[str, Any]) -> Grader:
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in table.items()}
    return _GRADERS[fields.pop("is")](**fields)


def _call(table: dict[str, Any]) -> ReferenceCall:
    args = dict(table)
    return ReferenceCall(args.pop("tool"), args)


def _task(kind: str, table: dict[str, Any]) -> EvalTask:
    rounds = tuple(tuple(_call(c) for c in r.get("call", ())) for r in table.get("round", ()))
    return EvalTask(
        table["id"],
        kind,
        table["prompt"],
        tuple(_grader(check) for check in table.get("check", ())),
        Reference(rounds, table.get("answer", "")),
        files=dict(table.get("files", {})),
        page=table.get("page", ""),
        time_limit_s=float(table.get("time_limit_s", 300.0)),
    )


def tasks_of_kind(kind: str) -> list[EvalTask]:
    task_file = files("loki_desktop.core.evaluation").joinpath("basic", f"{kind}.toml")
    text = task_file.read_text(encoding="utf-8")
    return [_task(kind, table) for table in tomllib.loads(text)["task"]]


def basic_suite() -> list[EvalTask]:
    return [task for kind in KINDS for task in tasks_of_kind(kind)]


SUITES = {"basic": basic_suite}
