"""Syntax errors from a tree-sitter grammar: the ERROR and MISSING nodes of the parse tree."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Literal

from loki_desktop.core.events import Problem
from loki_desktop.core.i18n import _

if TYPE_CHECKING:
    from tree_sitter import Language, Node

Grammar = Literal["typescript", "tsx", "javascript"]
# One error a line is what a person reads; tree-sitter's recovery may add more around it.
MAX_ERRORS = 10
_SHOWN_CHARS = 30
# TypeScript newer than tree-sitter-typescript 0.23, rewritten into syntax it knows, each
# match keeping its length (so every position stays): variance annotations `<in out T>`
# (TS 4.7), `export type * from` (5.0), `static accessor` (4.9; a lone `accessor` is
# known), and `await using` / `for (using x of …)` (5.2).
_REWRITES: tuple[tuple[str, re.Pattern[str], str | None], ...] = (
    # (a word every match holds, the pattern, the replacement of its "word" group)
    (
        "in",
        re.compile(r"[<,]\s*(?P<word>in\s+out|in|out)\s+[A-Za-z_$][\w$]*\s*(?:[,>=]|extends\b)"),
        None,
    ),
    ("out", re.compile(r"[<,]\s*(?P<word>out)\s+[A-Za-z_$][\w$]*\s*(?:[,>=]|extends\b)"), None),
    ("export", re.compile(r"\bexport\s+(?P<word>type)\s*\*"), None),
    ("using", re.compile(r"\b(?P<word>await)\s+using\s+[A-Za-z_$]"), None),
    ("using", re.compile(r"\bfor\s*\(\s*(?P<word>using)\s+[A-Za-z_$][\w$]*\s+of\b"), "const"),
    ("accessor", re.compile(r"\bstatic\s+(?P<word>accessor)\s+[#A-Za-z_$\[]"), None),
)
_CLOSERS = frozenset({"}", ")", "]", "jsx_text", "comment"})


@functools.cache
def language(grammar: Grammar) -> Language:
    """The compiled grammar (from its wheel), loaded on first use (~1 ms)."""
    from tree_sitter import Language

    if grammar == "javascript":
        import tree_sitter_javascript

        return Language(tree_sitter_javascript.language())
    import tree_sitter_typescript

    if grammar == "tsx":
        return Language(tree_sitter_typescript.language_tsx())
    return Language(tree_sitter_typescript.language_typescript())


def code_problems(grammar: Grammar, text: str) -> list[Problem]:
    """Syntax errors, then (in a file that parses) JSX tags closed by the wrong name.
    Parsed once; nothing is run."""
    from tree_sitter import Parser

    data = (_newer_typescript(text) if grammar != "javascript" else text).encode("utf-8")
    root = Parser(language(grammar)).parse(data).root_node
    if root.has_error:
        return _syntax_problems(root, data)
    return [] if grammar == "typescript" else _jsx_tag_problems(root, data)


def syntax_problems(grammar: Grammar, text: str) -> list[Problem]:
    """Where the grammar could not parse `text`, first error first."""
    from tree_sitter import Parser

    data = (_newer_typescript(text) if grammar != "javascript" else text).encode("utf-8")
    root = Parser(language(grammar)).parse(data).root_node
    return _syntax_problems(root, data) if root.has_error else []


def _syntax_problems(root: Node, data: bytes) -> list[Problem]:
    problems: list[Problem] = []
    lines_seen: set[int] = set()
    for found in _error_nodes(root):
        node = _culprit(found, data)
        line, col = _position(data, node)
        if line in lines_seen:
            continue
        lines_seen.add(line)
        if node is found:
            message = _message(node, data, missing=found.is_missing)
        else:
            message = _("erreur de syntaxe dans « {text} »").format(text=_line_from(node, data))
        problems.append(Problem(line, col, message))
        if len(problems) >= MAX_ERRORS:
            break
    return problems


def _jsx_tag_problems(root: Node, data: bytes) -> list[Problem]:
    """`<h2>…</h3>`: tree-sitter accepts any closing name; a JSX compiler does not."""
    problems = []
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.children))
        if node.type != "jsx_element" or len(node.children) < 2:
            continue
        opening, closing = node.children[0], node.children[-1]
        if opening.type != "jsx_opening_element" or closing.type != "jsx_closing_element":
            continue
        want, got = _tag_name(opening, data), _tag_name(closing, data)
        if want != got:
            line, col = _position(data, closing)
            message = _("</{got}> ferme <{want}> : il faut </{want}>").format(got=got, want=want)
            problems.append(Problem(line, col, message))
    return problems


def _tag_name(element: Node, data: bytes) -> str:
    name = element.child_by_field_name("name")
    if name is None:  # a fragment: <> … </>
        return ""
    return data[name.start_byte : name.end_byte].decode("utf-8", "replace")


def _culprit(node: Node, data: bytes) -> Node:
    """Where to point in an ERROR node. tree-sitter wraps the whole region it could not
    parse, often from a statement that was fine: the mistake is in the last construct
    that starts a line in it (a parser reading left to right stops there)."""
    if node.is_missing or node.start_point[0] == node.end_point[0]:
        return node
    chosen = node
    for child in node.children:
        starts_line = not data[child.start_byte - child.start_point[1] : child.start_byte].strip()
        if starts_line and child.type not in _CLOSERS:
            chosen = child
    return chosen


def _newer_typescript(text: str) -> str:
    """TypeScript newer than the grammar (tree-sitter-typescript 0.23): the keyword it does
    not know is blanked or replaced (same length, so positions stay) by syntax it knows."""
    for word, pattern, replacement in _REWRITES:
        if word in text:  # most files hold none: the patterns are not even run
            text = pattern.sub(functools.partial(_rewritten, replacement=replacement), text)
    return text


def _rewritten(match: re.Match[str], replacement: str | None) -> str:
    start, end = match.span("word")
    new = replacement or " " * (end - start)
    whole = match[0]
    offset = start - match.start()
    return whole[:offset] + new + whole[offset + (end - start) :]


def _error_nodes(node: Node) -> Iterator[Node]:
    """ERROR and MISSING nodes in source order; an ERROR node's insides are not searched."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.is_missing or current.type == "ERROR":
            yield current
            continue
        if current.has_error:
            stack.extend(reversed(current.children))


def _position(data: bytes, node: Node) -> tuple[int, int]:
    """1-based line and character column (tree-sitter counts bytes)."""
    row, byte_col = node.start_point
    line_start = node.start_byte - byte_col
    col = len(data[line_start : node.start_byte].decode("utf-8", "replace")) + 1
    return row + 1, col


def _message(node: Node, data: bytes, *, missing: bool) -> str:
    if missing:
        if node.is_named:
            return _("erreur de syntaxe : il manque un élément ({kind})").format(kind=node.type)
        return _("erreur de syntaxe : « {token} » manquant").format(token=node.type)
    shown = _shown(node, data)
    if not shown:
        return _("erreur de syntaxe : fin de fichier inattendue")
    return _("erreur de syntaxe : « {text} » n'est pas attendu ici").format(text=shown)


def _line_from(node: Node, data: bytes) -> str:
    """The rest of the node's first line (the construct a reader should look at)."""
    end = data.find(b"\n", node.start_byte)
    text = data[node.start_byte : end if end >= 0 else len(data)].decode("utf-8", "replace")
    shown = " ".join(text.split())
    return shown[:_SHOWN_CHARS] + "…" if len(shown) > _SHOWN_CHARS else shown


def _shown(node: Node, data: bytes) -> str:
    """The node's first line, blanks squeezed, cut short."""
    text = data[node.start_byte : node.end_byte].decode("utf-8", "replace")
    shown = " ".join(text.split("\n", 1)[0].split())
    return shown[:_SHOWN_CHARS] + "…" if len(shown) > _SHOWN_CHARS else shown
