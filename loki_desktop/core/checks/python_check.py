"""The Python check: compile() for syntax (never run), ruff's fatal rules for undefined names."""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
import tokenize
import warnings
from pathlib import Path
from typing import Any

from loki_desktop.core.checks.model import CheckResult
from loki_desktop.core.checks.process import run_tool
from loki_desktop.core.checks.source import Source, position
from loki_desktop.core.events import Problem

# The errors that break at run time, as aider's linter selects them (ruff has no F831):
# syntax and IO errors, undefined names (also in __all__ and before assignment),
# misplaced star imports and __future__, break/continue/yield/return out of place.
# Unused imports and style are deliberately not problems.
RUFF_RULES = "E9,F821,F822,F823,F406,F407,F701,F702,F704,F706"
# Which builtins exist depends on the target version: the newest one every supported ruff
# (>= 0.6) knows, so a file written for 3.13 may use PythonFinalizationError. Syntax is
# compile()'s business, with the Python that runs here.
RUFF_TARGET = f"py3{max(sys.version_info.minor, 13)}"


def find_ruff() -> str | None:
    """The ruff binary of the `ruff` wheel, else one beside Python, else one on PATH."""
    try:
        from ruff import find_ruff_bin

        return os.fsdecode(find_ruff_bin())
    except (ImportError, FileNotFoundError):
        pass
    beside = Path(sys.executable).with_name("ruff.exe" if sys.platform == "win32" else "ruff")
    if beside.is_file():
        return str(beside)
    return shutil.which("ruff")


async def check_python(source: Source, ruff: str | None) -> CheckResult:
    text = decode_python(source.data)
    if isinstance(text, Problem):
        return CheckResult((text,))
    problems: list[Problem] = []
    syntax = compile_problem(text, source.path.name)
    if syntax is not None:
        problems.append(syntax)
    skipped = None
    if ruff is None:
        skipped = "ruff was not found: undefined names were not checked"
    else:
        found, skipped = await _ruff_problems(ruff, text, source.path.name)
        # compile() already said "'break' outside loop" on that line: F701 would repeat it
        problems += [
            problem
            for problem in found
            if syntax is None or problem.line != syntax.line or _is_undefined_name(problem)
        ]
    return CheckResult(tuple(sorted(problems, key=lambda p: (p.line, p.col))), skipped)


def decode_python(data: bytes) -> str | Problem:
    """Decode as Python does (PEP 263: a BOM or a coding cookie, else UTF-8)."""
    try:
        encoding, _lines = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        if "invalid or missing encoding declaration" not in str(exc):
            return Problem(_cookie_line(data), 1, f"SyntaxError: {exc}")
        encoding = "utf-8"  # no cookie and not UTF-8: say where the bad byte is
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line, col = position(data, exc.start)
        return Problem(
            line,
            col,
            f"SyntaxError: byte 0x{data[exc.start]:02x} is not valid {encoding} "
            "(save the file as UTF-8 or declare its encoding)",
        )


def compile_problem(text: str, filename: str) -> Problem | None:
    """The syntax error compile() finds, if any. The code is compiled, never run.

    compile() takes the decoded text (so columns count characters) and runs on the
    calling thread: catch_warnings swaps process-wide state, which a worker thread
    would race with. A 5,000-line file compiles in ~35 ms.
    """
    with warnings.catch_warnings():
        # SyntaxWarning ("is" with a literal, invalid escapes) is not fatal; under
        # `-W error` compile() would turn it into a SyntaxError.
        warnings.simplefilter("ignore")
        try:
            compile(text, filename, "exec", dont_inherit=True)
        except SyntaxError as exc:
            return Problem(
                exc.lineno or 1, max(exc.offset or 1, 1), f"{type(exc).__name__}: {exc.msg}"
            )
        except (MemoryError, RecursionError):
            return Problem(1, 1, "SyntaxError: the code is nested too deeply to compile")
        except ValueError as exc:  # e.g. NUL characters, if they ever get this far
            return Problem(1, 1, f"SyntaxError: {exc}")
    return None


async def _ruff_problems(ruff: str, text: str, name: str) -> tuple[list[Problem], str | None]:
    # ruff reads UTF-8 only: the text is already decoded per PEP 263, so pipe it in.
    argv = [
        ruff,
        "check",
        "--isolated",
        "--no-cache",
        "--select",
        RUFF_RULES,
        "--target-version",
        RUFF_TARGET,
        "--output-format",
        "json",
        "--stdin-filename",
        name,
        "-",
    ]
    try:
        done = await run_tool(argv, text.encode("utf-8"))
    except OSError as exc:
        return [], f"ruff could not run ({exc.strerror or exc}): undefined names were not checked"
    if done is None:
        return [], "ruff took too long: undefined names were not checked"
    try:
        diagnostics: list[dict[str, Any]] = json.loads(done.stdout)
    except ValueError:
        first = (done.stderr.strip().splitlines() or ["no output"])[0]
        return [], f"ruff failed ({first}): undefined names were not checked"
    problems = []
    for item in diagnostics:
        code = item.get("code")
        # compile() is the judge of syntax (the Python that will run the file);
        # ruff's parser reports syntax errors with code None or "invalid-syntax".
        if not code or not code[0].isupper() or code == "E999":
            continue
        location = item.get("location") or {}
        problems.append(
            Problem(
                int(location.get("row") or 1),
                int(location.get("column") or 1),
                f"{code} {item.get('message', '')}",
            )
        )
    return problems, None


def _is_undefined_name(problem: Problem) -> bool:
    return problem.message.startswith(("F821 ", "F822 ", "F823 "))


def _cookie_line(data: bytes) -> int:
    """Which of the first two lines carries the (bad) coding declaration."""
    first_two = data.split(b"\n", 2)[:2]
    for number, line in enumerate(first_two, 1):
        if b"coding" in line:
            return number
    return 1
