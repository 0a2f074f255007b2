"""The TypeScript, TSX and JSX check: tree-sitter's grammars (wheels, no Node), parse only."""

from __future__ import annotations

import asyncio

from loki_desktop.core.checks.model import CheckResult
from loki_desktop.core.checks.source import Source, decode_utf8
from loki_desktop.core.checks.syntax_tree import Grammar, code_problems
from loki_desktop.core.events import Problem

GRAMMARS: dict[str, Grammar] = {
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".jsx": "javascript",  # tree-sitter's JavaScript grammar includes JSX
}


async def check_typescript(source: Source) -> CheckResult:
    text = decode_utf8(source.data)
    if isinstance(text, Problem):
        return CheckResult((text,))
    grammar = GRAMMARS.get(source.path.suffix.lower(), "typescript")
    # ~10 ms for 5,000 lines, but a 1 MB file must not hold the event loop
    problems = await asyncio.to_thread(code_problems, grammar, text)
    return CheckResult(tuple(problems))
