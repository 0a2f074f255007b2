"""What an evaluation task is: a request, a starting workspace, and an automatic grader.

Graders are values (frozen dataclasses); `graders.grade` judges a finished task with them.
Each task also carries a `reference`: the tool calls and answer of a model that solves it,
which the replay backend turns into an oracle run (every grader must pass) and a sabotaged
run (every grader must fail), so CI tests the runner and each grader without a model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class FileEquals:
    """The file holds exactly this text (trailing whitespace of each line ignored)."""

    path: str
    text: str


@dataclass(frozen=True, slots=True)
class FileContains:
    """The file exists and holds each snippet (and none of `absent`), case-insensitively."""

    path: str
    snippets: tuple[str, ...]
    absent: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TestsPass:
    """The task's own tests pass: `python -m unittest` in the workspace, in a subprocess
    with a time limit (the grader may run code; the agent still may not, unapproved)."""

    __test__ = False  # not a pytest class, whatever its name

    pattern: str = "test_*.py"


@dataclass(frozen=True, slots=True)
class HtmlValid:
    """The page passes Loki's HTML check (structure, inline scripts) with its links resolved,
    and holds each snippet."""

    path: str
    snippets: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class AnswerNumber:
    """The final answer states this number (within `tolerance`)."""

    value: float
    tolerance: float = 0.0


@dataclass(frozen=True, slots=True)
class AnswerContains:
    """The final answer holds each of these words or phrases, case-insensitively."""

    words: tuple[str, ...]


Grader = FileEquals | FileContains | TestsPass | HtmlValid | AnswerNumber | AnswerContains


@dataclass(frozen=True, slots=True)
class ReferenceCall:
    name: str
    args: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Reference:
    """How a model solves the task: one tool round per item of `rounds`, then `answer`."""

    rounds: tuple[tuple[ReferenceCall, ...], ...] = ()
    answer: str = ""


@dataclass(frozen=True, slots=True)
class EvalTask:
    id: str
    kind: str  # "file", "fix", "web", "data", "tool", "memory", "workspace"
    prompt: str
    graders: tuple[Grader, ...]
    reference: Reference
    files: dict[str, str] = field(default_factory=dict)
    # "fetch": the runner serves `page` on a loopback port; {url} in the prompt is its address
    page: str = ""
    time_limit_s: float = 300.0
    # said first, each in a turn of an earlier conversation of the task's run; `prompt` is
    # then asked in a new conversation (the memory tasks)
    earlier: tuple[str, ...] = ()

    @property
    def needs_fetch(self) -> bool:
        return bool(self.page)


def call(name: str, **args: Any) -> ReferenceCall:
    return ReferenceCall(name, args)
