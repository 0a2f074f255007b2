"""Judging a finished task: each grader says passed or not, and why (one line)."""

from __future__ import annotations

import asyncio
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from loki_desktop.core.checks.registry import Checkers
from loki_desktop.core.evaluation.tasks import (
    AnswerContains,
    AnswerNumber,
    FileContains,
    FileEquals,
    Grader,
    HtmlValid,
    TestsPass,
)

TESTS_TIMEOUT_S = 60.0
# "1 234,5", "1,234.5", "1234.5", "-3" (spaces, narrow and non-breaking spaces as thousands)
_NUMBER = re.compile(r"-?\d[\d \u00a0\u202f.,]*\d|-?\d")


@dataclass(frozen=True, slots=True)
class Verdict:
    passed: bool
    reason: str


async def grade(graders: tuple[Grader, ...], workspace: Path, answer: str) -> list[Verdict]:
    return [await _grade_one(grader, workspace, answer) for grader in graders]


async def _grade_one(grader: Grader, workspace: Path, answer: str) -> Verdict:
    match grader:
        case FileEquals(path=path, text=text):
            content = _read(workspace / path)
            if content is None:
                return Verdict(False, f"{path} is missing")
            same = _lines(content) == _lines(text)
            verb = "matches" if same else "differs from"
            return Verdict(same, f"{path} {verb} the expected text")
        case FileContains(path=path, snippets=snippets, absent=absent):
            return _contains(workspace / path, path, snippets, absent)
        case TestsPass(pattern=pattern):
            return await _tests_pass(workspace, pattern)
        case HtmlValid(path=path, snippets=snippets):
            return await _html_valid(workspace, path, snippets)
        case AnswerNumber(value=value, tolerance=tolerance):
            found = numbers_in(answer)
            hit = any(abs(number - value) <= tolerance for number in found)
            return Verdict(hit, f"answer {'states' if hit else 'does not state'} {value:g}")
        case AnswerContains(words=words):
            missing = [word for word in words if word.lower() not in answer.lower()]
            return Verdict(not missing, f"answer lacks {missing}" if missing else "answer ok")


def _contains(file: Path, path: str, snippets: tuple[str, ...], absent: tuple[str, ...]) -> Verdict:
    content = _read(file)
    if content is None:
        return Verdict(False, f"{path} is missing")
    low = content.lower()
    missing = [s for s in snippets if s.lower() not in low]
    present = [s for s in absent if s.lower() in low]
    if missing or present:
        return Verdict(False, f"{path}: missing {missing}, unwanted {present}")
    return Verdict(True, f"{path} holds what it should")


async def _tests_pass(workspace: Path, pattern: str) -> Verdict:
    if getattr(sys, "frozen", False):  # inside the bundle, sys.executable is the app
        return Verdict(False, "tests cannot run from the bundle (no Python)")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-I",  # isolated: no user site, no PYTHON* variables
        "-B",  # no __pycache__ left in the task's folder
        "-m",
        "unittest",
        "discover",
        "-p",
        pattern,
        cwd=workspace,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        output, _ = await asyncio.wait_for(process.communicate(), TESTS_TIMEOUT_S)
    except TimeoutError:
        process.kill()
        await process.wait()
        return Verdict(False, f"tests still running after {TESTS_TIMEOUT_S:g} s")
    last = output.decode(errors="replace").strip().splitlines()[-1:] or [""]
    return Verdict(process.returncode == 0, f"tests: {last[0]}")


async def _html_valid(workspace: Path, path: str, snippets: tuple[str, ...]) -> Verdict:
    page = workspace / path
    if not page.is_file():
        return Verdict(False, f"{path} is missing")
    result = await Checkers().check(page, workspace)
    if not result.ok:
        first = result.problems[0].located(path) if result.problems else result.skipped
        return Verdict(False, f"HTML check fails: {first}")
    return _contains(page, path, snippets, ())


def numbers_in(text: str) -> list[float]:
    """Every number written in `text`, French or English style; "3,142" is both 3.142
    and 3142 (the grader accepts either reading)."""
    found: list[float] = []
    for raw in _NUMBER.findall(text):
        found += _readings(raw)
    return found


def _readings(raw: str) -> list[float]:
    text = re.sub(r"[ \u00a0\u202f]", "", raw).rstrip(".,")
    candidates: list[str]
    if "," in text and "." in text:  # the last mark is the decimal one
        if text.rfind(",") > text.rfind("."):
            candidates = [text.replace(".", "").replace(",", ".")]
        else:
            candidates = [text.replace(",", "")]
    elif text.count(",") == 1:
        candidates = [text.replace(",", ".")]
        if len(text.rpartition(",")[2]) == 3:  # "1,234": maybe a thousands group
            candidates.append(text.replace(",", ""))
    else:
        candidates = [text.replace(",", "")]
    values = []
    for candidate in candidates:
        try:
            values.append(float(candidate))
        except ValueError:
            continue
    return values


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip().splitlines()]
