"""The CSS check: tinycss2 (CSS Syntax Level 3, nesting included): declarations without their
colon, blocks never closed, stray characters."""

from __future__ import annotations

import asyncio
from typing import Any

from loki_desktop.core.checks.model import CheckResult
from loki_desktop.core.checks.source import Source, decode_utf8, end_position
from loki_desktop.core.events import Problem
from loki_desktop.core.i18n import _

# Appended to the text to see which blocks the end of the file closes: it lands inside
# every block still open. A comment before it keeps it away from a last token.
_END_MARK = "loki-end-of-file-mark"
_MAX_PROBLEMS = 20
_OPENERS = {"{} block": "{", "() block": "(", "[] block": "["}
_CLOSERS = {"{} block": "}", "() block": ")", "[] block": "]", "function": ")"}


async def check_css(source: Source) -> CheckResult:
    text = decode_utf8(source.data)
    if isinstance(text, Problem):
        return CheckResult((text,))
    return CheckResult(tuple(await asyncio.to_thread(css_problems, text)))


def css_problems(text: str) -> list[Problem]:
    import tinycss2

    problems = _unclosed(text)
    rules = tinycss2.parse_stylesheet(text, skip_comments=True, skip_whitespace=True)
    problems += _rule_problems(rules, depth=0)
    unique = sorted(set(problems), key=lambda p: (p.line, p.col))
    return unique[:_MAX_PROBLEMS]


def _rule_problems(nodes: list[Any], depth: int) -> list[Problem]:
    import tinycss2

    problems: list[Problem] = []
    for node in nodes:
        if node.type == "error":
            problems.append(_error_problem(node, inside_block=depth > 0))
            continue
        if node.type == "declaration":
            problems += _token_problems(node.value)
            continue
        if node.type in ("qualified-rule", "at-rule"):
            problems += _token_problems(node.prelude)
        if node.type in ("qualified-rule", "at-rule") and node.content is not None:
            # a block holds declarations and (nested) rules: CSS Nesting is valid CSS
            inner = tinycss2.parse_blocks_contents(
                node.content, skip_comments=True, skip_whitespace=True
            )
            problems += _rule_problems(inner, depth + 1)
    return problems


def _token_problems(tokens: list[Any]) -> list[Problem]:
    """Bad tokens inside a value or a selector: a string cut by a line end, a stray "}"."""
    problems: list[Problem] = []
    stack = list(tokens)
    while stack:
        token = stack.pop()
        if token.type == "error":
            problems.append(_error_problem(token))
        elif token.type == "literal" and token.value == "}":
            message = _("« } » sans « { » correspondante")
            problems.append(Problem(token.source_line, token.source_column, message))
        elif token.type in ("() block", "[] block", "{} block"):
            stack.extend(token.content)
        elif token.type == "function":
            stack.extend(token.arguments)
    return problems


def _error_problem(node: Any, *, inside_block: bool = False) -> Problem:
    line, col = node.source_line, node.source_column
    if node.kind == "invalid" and "before {} block" in node.message:
        if inside_block or node.message.startswith("Stop token"):
            # neither "property: value;" nor "selector { … }": a colon is missing
            message = _("déclaration invalide : il manque « : » entre la propriété et la valeur")
        else:
            message = _("sélecteur sans bloc « { … } » avant la fin du fichier")
    elif node.kind in ("eof-in-string", "bad-string"):
        message = _("chaîne jamais fermée : un guillemet manque")
    elif node.kind in ("eof-in-url", "bad-url"):
        message = _("url( mal formée ou jamais fermée : « ) » manque")
    elif node.kind in (")", "]", "}"):
        message = _("« {char} » sans ouverture correspondante").format(char=node.kind)
    else:
        message = _("CSS invalide : {error}").format(error=node.message)
    return Problem(line, col, message)


def _unclosed(text: str) -> list[Problem]:
    """Blocks the end of the file closes. With nesting, `a { b { } ` is valid up to the
    end, so the end is where the missing "}" is seen (as browsers and esbuild see it)."""
    import tinycss2

    tokens = tinycss2.parse_component_value_list(f"{text}\n/**/{_END_MARK}")
    opened: list[Any] = []
    while tokens:
        last = next((t for t in reversed(tokens) if t.type not in ("whitespace", "comment")), None)
        if last is None or last.type not in _CLOSERS:
            break
        opened.append(last)
        tokens = last.arguments if last.type == "function" else last.content
    if not any(t.type == "ident" and t.value == _END_MARK for t in tokens):
        return []  # the mark is in a comment or string never closed: said elsewhere
    line, col = end_position(text)
    return [
        Problem(
            line,
            col,
            _("« {opener} » ouvert ligne {line} jamais fermé : « {closer} » manquant").format(
                opener=_OPENERS[block.type] if block.type != "function" else f"{block.name}(",
                line=block.source_line,
                closer=_CLOSERS[block.type],
            ),
        )
        for block in reversed(opened)
    ]
