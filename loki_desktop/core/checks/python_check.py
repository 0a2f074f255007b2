"""The Python check: the project's grammar (ruff's parser), compile() (never run), fatal rules."""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import shutil
import sys
import tokenize
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loki_desktop.core.checks.model import CheckResult
from loki_desktop.core.checks.process import run_tool
from loki_desktop.core.checks.python_version import PythonTarget, python_target
from loki_desktop.core.checks.source import Source, position
from loki_desktop.core.events import Problem
from loki_desktop.core.i18n import _

# The errors that break at run time, as aider's linter selects them (ruff has no F831):
# syntax and IO errors, undefined names (also in __all__ and before assignment),
# misplaced star imports and __future__, break/continue/yield/return out of place.
# Unused imports and style are deliberately not problems.
RUFF_RULES = "E9,F821,F822,F823,F406,F407,F701,F702,F704,F706"
# ruff's parser says when syntax is newer (or older) than the target version.
_VERSION_SYNTAX = re.compile(
    r"^(?P<what>.+?) on Python 3\.\d+ "
    r"\(syntax was (?P<how>added|removed) in Python (?P<version>3\.\d+)\)$"
)
_RUNNING = sys.version_info[:2]
_RUNNING_TARGET = PythonTarget(_RUNNING)


@dataclass(frozen=True, slots=True)
class _RuffFindings:
    """What ruff said: syntax errors for a grammar version, and the fatal rules."""

    syntax: list[Problem] = field(default_factory=list)  # the first one is the real one
    versions: list[Problem] = field(default_factory=list)  # syntax of another Python
    rules: list[Problem] = field(default_factory=list)
    skipped: str | None = None


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
    """Syntax with the grammar of the project's Python (ruff's parser), compile() where
    Loki's own Python knows that grammar, and ruff's fatal rules."""
    text = decode_python(source.data)
    if isinstance(text, Problem):
        return CheckResult((text,))
    target = await asyncio.to_thread(python_target, source.path)
    if ruff is None:
        return _without_ruff(text, source.path.name, target)
    found = await _ruff_problems(ruff, text, source.path.name, target)
    syntax = compile_problem(text, source.path.name)
    judged = True  # compile()'s verdict stands: Loki's Python knows the file's grammar
    if syntax is not None:
        # compile() sees what ruff does not ('await' outside async function...), but
        # only a file with no syntax newer than Loki's own Python may be judged so.
        if target.version == _RUNNING:
            newer = bool(found.versions)
        else:
            at_running = await _ruff_problems(ruff, text, source.path.name, _RUNNING_TARGET)
            newer = bool(at_running.versions or at_running.skipped)
        if newer:
            syntax, judged = None, False
    if syntax is None and found.syntax and (target.version != _RUNNING or not judged):
        syntax = found.syntax[0]  # the next ones are mostly the parser recovering
    problems = [_versioned(problem, target) for problem in found.versions]
    if syntax is not None:
        problems.append(syntax)
    # compile() already said "'break' outside loop" on that line: F701 would repeat it
    problems += [
        rule
        for rule in found.rules
        if syntax is None or rule.line != syntax.line or _is_undefined_name(rule)
    ]
    return CheckResult(tuple(sorted(problems, key=lambda p: (p.line, p.col))), found.skipped)


def _without_ruff(text: str, name: str, target: PythonTarget) -> CheckResult:
    if target.version > _RUNNING:
        return CheckResult(
            skipped=_(
                "ruff introuvable : ni la syntaxe de Python {version} ni les noms non "
                "définis n'ont été vérifiés"
            ).format(version=target.shown)
        )
    syntax = compile_problem(text, name)
    note = _("ruff introuvable : les noms non définis n'ont pas été vérifiés")
    return CheckResult((syntax,) if syntax else (), note)


def _versioned(problem: Problem, target: PythonTarget) -> Problem:
    """ruff's "Cannot use X on Python 3.11 (syntax was added in Python 3.12)", said with
    the version the project declares, and where it declares it."""
    match = _VERSION_SYNTAX.match(problem.message)
    if match is None:
        return problem
    what = match["what"]
    declared = (
        _("le projet déclare Python {version} ({origin})").format(
            version=target.shown, origin=target.origin
        )
        if target.origin
        else _("aucune version n'est déclarée (grammaire de Python {version})").format(
            version=target.shown
        )
    )
    if match["how"] == "added":
        message = _("SyntaxError: {what} : syntaxe de Python {version} et plus, mais {declared}")
    else:
        message = _("SyntaxError: {what} : syntaxe retirée en Python {version}, mais {declared}")
    return Problem(
        problem.line,
        problem.col,
        message.format(what=what, version=match["version"], declared=declared),
    )


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
            _(
                "SyntaxError: l'octet 0x{byte} n'est pas du {encoding} valide (enregistrez le "
                "fichier en UTF-8 ou déclarez son encodage)"
            ).format(byte=f"{data[exc.start]:02x}", encoding=encoding),
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
            return Problem(1, 1, _("SyntaxError: code trop imbriqué pour être compilé"))
        except ValueError as exc:  # e.g. NUL characters, if they ever get this far
            return Problem(1, 1, f"SyntaxError: {exc}")
    return None


async def _ruff_problems(ruff: str, text: str, name: str, target: PythonTarget) -> _RuffFindings:
    # ruff reads UTF-8 only: the text is already decoded per PEP 263, so pipe it in.
    argv = [ruff, "check", "--isolated", "--no-cache", "--select", RUFF_RULES]
    argv += ["--target-version", target.ruff_name, "--output-format", "json"]
    argv += ["--stdin-filename", name, "-"]
    try:
        done = await run_tool(argv, text.encode("utf-8"))
    except OSError as exc:
        reason = exc.strerror or str(exc)
        note = _("ruff n'a pas pu démarrer ({reason}) : Python n'a pas été vérifié")
        return _RuffFindings(skipped=note.format(reason=reason))
    if done is None:
        return _RuffFindings(skipped=_("ruff a pris trop de temps : Python n'a pas été vérifié"))
    return read_ruff_report(done.stdout, done.stderr)


def read_ruff_report(stdout: str, stderr: str) -> _RuffFindings:
    """What ruff's JSON output says; a reason to skip when it is not the JSON expected."""
    try:
        diagnostics = json.loads(stdout)
    except (ValueError, RecursionError):
        diagnostics = None
    if not isinstance(diagnostics, list):
        first = (stderr.strip().splitlines() or [_("aucune sortie")])[0]
        note = _("ruff a échoué ({first}) : Python n'a pas été vérifié")
        return _RuffFindings(skipped=note.format(first=first))
    found = _RuffFindings()
    for item in diagnostics:
        if isinstance(item, dict):
            _read_ruff_item(item, found)
    return found


def _read_ruff_item(item: dict[str, Any], found: _RuffFindings) -> None:
    code = item.get("code")
    location = item.get("location")
    location = location if isinstance(location, dict) else {}
    line, col = _position(location.get("row")), _position(location.get("column"))
    # ruff < 0.13 reports syntax errors with code None and a "SyntaxError: " prefix
    message = str(item.get("message", "")).removeprefix("SyntaxError: ")
    if not code or code in ("invalid-syntax", "E999"):
        if _VERSION_SYNTAX.match(message):
            found.versions.append(Problem(line, col, message))
        else:
            found.syntax.append(Problem(line, col, f"SyntaxError: {message}"))
    elif isinstance(code, str) and code[0].isupper():
        found.rules.append(Problem(line, col, f"{code} {message}"))


def _position(value: object) -> int:
    """A 1-based line or column as reported (1 when it is missing or not a number)."""
    return value if type(value) is int and value > 0 else 1


def _is_undefined_name(problem: Problem) -> bool:
    return problem.message.startswith(("F821 ", "F822 ", "F823 "))


def _cookie_line(data: bytes) -> int:
    """Which of the first two lines carries the (bad) coding declaration."""
    first_two = data.split(b"\n", 2)[:2]
    for number, line in enumerate(first_two, 1):
        if b"coding" in line:
            return number
    return 1
