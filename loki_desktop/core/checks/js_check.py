"""The JavaScript check: `node --check` on stdin (parse only, never run), CommonJS or ES module."""

from __future__ import annotations

import asyncio
import os
import re
from dataclasses import dataclass
from typing import Literal

from loki_desktop.core.checks.model import CheckResult
from loki_desktop.core.checks.process import run_tool
from loki_desktop.core.checks.source import Source, decode_utf8
from loki_desktop.core.checks.syntax_tree import code_problems
from loki_desktop.core.events import Problem
from loki_desktop.core.i18n import N_, _

Mode = Literal["commonjs", "module", "detect"]

NODE_MISSING = N_("node est introuvable : JavaScript n'a pas été vérifié (installez Node.js)")

# What V8 says when a script uses syntax only an ES module may use. Node itself
# (--experimental-detect-module) re-parses as a module on these, and so do we.
_MODULE_ONLY = (
    "Cannot use import statement outside a module",
    "Unexpected token 'export'",
    "Cannot use 'import.meta' outside a module",
    "await is only valid in async functions and the top level bodies of modules",
)
_STDIN_LOCATION = re.compile(r"^\[stdin\]:(\d+)\s*$")
_ERROR_LINE = re.compile(r"^[A-Za-z]*Error: ")
_REACT = re.compile(r"""from\s+['"]react['"]|require\(\s*['"]react['"]\s*\)|\bReact\.""")


@dataclass(frozen=True, slots=True)
class Verdict:
    """What node said about one piece of code: a problem, or why it could not say."""

    problem: Problem | None = None
    skipped: str | None = None


def mode_for(suffix: str) -> Mode:
    """`.mjs` is a module, `.cjs` CommonJS; a `.js` file may be either (a browser file
    with import/export is valid), so it is parsed the way node detects it."""
    modes: dict[str, Mode] = {".mjs": "module", ".cjs": "commonjs"}
    return modes.get(suffix.lower(), "detect")


async def check_javascript(source: Source, node: str | None) -> CheckResult:
    text = decode_utf8(source.data)
    if isinstance(text, Problem):
        return CheckResult((text,))
    if node is None:
        return CheckResult(skipped=_(NODE_MISSING))
    verdict = await check_code(node, text, mode_for(source.path.suffix))
    if verdict.problem is not None and _looks_like_jsx(text, verdict.problem):
        # node cannot parse JSX: the JSX grammar judges the file instead
        return CheckResult(tuple(await asyncio.to_thread(code_problems, "javascript", text)))
    problems = (verdict.problem,) if verdict.problem else ()
    return CheckResult(problems, verdict.skipped)


async def check_code(node: str, text: str, mode: Mode) -> Verdict:
    """Parse `text` with node (never run); `detect` tries CommonJS, then a module."""
    if mode != "detect":
        return await _node_check(node, text, mode)
    verdict = await _node_check(node, text, "commonjs")
    if verdict.problem is not None and verdict.problem.message.endswith(_MODULE_ONLY):
        return await _node_check(node, text, "module")
    return verdict


async def _node_check(node: str, text: str, input_type: str) -> Verdict:
    # NODE_OPTIONS could preload code (--require): the check must run nothing but node's parser.
    env = {key: value for key, value in os.environ.items() if key != "NODE_OPTIONS"}
    argv = [node, "--no-warnings", "--check", f"--input-type={input_type}", "-"]
    try:
        done = await run_tool(argv, text.encode("utf-8"), env=env)
    except OSError as exc:
        return Verdict(
            skipped=_("node n'a pas pu démarrer ({reason}) : non vérifié").format(
                reason=exc.strerror or exc
            )
        )
    if done is None:
        return Verdict(skipped=_("node a pris trop de temps : non vérifié"))
    if done.returncode == 0:
        return Verdict()
    problem = parse_node_error(done.stderr)
    if problem is None:
        first = (done.stderr.strip().splitlines() or [_("aucune sortie")])[0]
        return Verdict(skipped=_("node a échoué ({first}) : non vérifié").format(first=first))
    return Verdict(problem)


def parse_node_error(stderr: str) -> Problem | None:
    """The position and message of node's report:

    [stdin]:2
    foo(;
        ^
    <blank>
    SyntaxError: Unexpected token ';'
    """
    lines = stderr.splitlines()
    line, col = 1, 1
    located = False
    for index, text in enumerate(lines):
        match = _STDIN_LOCATION.match(text)
        if match:
            line = int(match[1])
            caret_line = lines[index + 2] if index + 2 < len(lines) else ""
            col = caret_line.find("^") + 1 or 1
            located = True
            break
    message = next((text for text in lines if _ERROR_LINE.match(text)), None)
    if message is None or not located:
        return None
    return Problem(line, col, message.strip())


def _looks_like_jsx(text: str, problem: Problem) -> bool:
    """React projects often keep JSX in .js files, which node cannot parse."""
    return problem.message == "SyntaxError: Unexpected token '<'" and bool(_REACT.search(text))
