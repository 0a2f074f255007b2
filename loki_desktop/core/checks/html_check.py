"""The HTML check: tag structure (html5lib), links to missing files, and inline scripts (node)."""

from __future__ import annotations

import asyncio
import codecs
import re
from collections.abc import Coroutine
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from loki_desktop.core.checks.js_check import Mode, check_code
from loki_desktop.core.checks.json_check import json_problem
from loki_desktop.core.checks.model import CheckResult
from loki_desktop.core.checks.source import Source, end_position, position
from loki_desktop.core.events import Problem
from loki_desktop.core.i18n import N_, _

VOID_ELEMENTS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param"}
    | {"source", "track", "wbr"}
)
# Elements whose end tag HTML lets you leave out: never "unclosed".
OPTIONAL_END_TAGS = frozenset(
    {"html", "head", "body", "p", "li", "dt", "dd", "option", "optgroup", "caption"}
    | {"tr", "td", "th", "thead", "tbody", "tfoot", "colgroup", "rb", "rt", "rtc", "rp"}
)
# Parse errors that browsers shrug off and that say nothing about structure: a missing
# doctype, loose entities ("a & b", "?a=1&copy=2"), a bare "<" in text, comment details.
_HARMLESS = frozenset(
    {
        "null-character",
        "invalid-codepoint",
        "deprecated-tag",
        "unexpected-start-tag-out-of-my-head",
        "expected-tag-name",
        "expected-tag-name-but-got-question-mark",
        "expected-tag-name-but-got-right-bracket",
        "expected-dashes-or-doctype",
        "incorrect-comment",
        "unexpected-char-in-comment",
        "unexpected-dash-after-double-dash-in-comment",
        "unexpected-space-after-double-dash-in-comment",
        "unexpected-bang-after-double-dash-in-comment",
        "equals-in-unquoted-attribute-value",
        "unexpected-character-in-unquoted-attribute-value",
    }
)
# Loki's wording of html5lib's frequent errors (translated when shown); the others keep
# html5lib's own English text
_MESSAGES = {
    "end-tag-too-early": N_(
        "</{name}> arrive alors qu'un élément dans <{name}> est encore ouvert "
        "(une balise de fin manque ?)"
    ),
    "unexpected-end-tag": N_(
        "</{name}> ne ferme aucun élément ouvert (les navigateurs l'ignorent)"
    ),
    "expected-one-end-tag-but-got-another": N_(
        "</{gotName}> arrive alors que <{expectedName}> est encore ouvert : "
        "</{expectedName}> manque"
    ),
    "non-void-element-with-trailing-solidus": N_(
        "<{name}/> ne ferme pas <{name}> (seuls les éléments vides comme <br> peuvent se "
        "fermer ainsi) : écrivez <{name}></{name}>"
    ),
    "duplicate-attribute": N_("attribut en double : les navigateurs ignorent le second"),
}
_JS_TYPES: dict[str, Mode] = {
    "": "commonjs",  # a classic script: no import/export, like CommonJS without `require`
    "text/javascript": "commonjs",
    "application/javascript": "commonjs",
    "text/ecmascript": "commonjs",
    "application/ecmascript": "commonjs",
    "module": "module",
}
_JSON_TYPES = frozenset(
    {"application/json", "application/ld+json", "importmap", "speculationrules"}
)
MAX_PARALLEL_NODES = 4
_TEMPLATE_SYNTAX = ("{{", "{%", "${", "<%", "<?")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)""", re.IGNORECASE)


@dataclass
class _Script:
    attrs: dict[str, str]
    line: int  # where the code starts (1-based line, 0-based column)
    col: int
    parts: list[str] = field(default_factory=list)
    closed: bool = False


@dataclass
class _Link:
    value: str
    line: int
    col: int


@dataclass
class _Scan:
    """What the stdlib parser saw, with positions."""

    links: list[_Link] = field(default_factory=list)
    scripts: list[_Script] = field(default_factory=list)
    templates: list[tuple[int, int]] = field(default_factory=list)  # content offsets
    open_tags: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    has_base: bool = False


async def check_html(source: Source, root: Path | None, node: str | None) -> CheckResult:
    text = decode_html(source.data)
    if isinstance(text, Problem):
        return CheckResult((text,))
    # html5lib is pure Python (~1 MB/s) and the links need stat calls: off the event loop.
    problems, scripts = await asyncio.to_thread(_static_problems, text, source.path, root)
    jobs, needs_node = _script_jobs(scripts, node)
    skipped = (
        _("node est introuvable : les scripts intégrés n'ont pas été vérifiés")
        if needs_node
        else None
    )
    problems += [problem for problem in await asyncio.gather(*jobs) if problem is not None]
    return CheckResult(tuple(sorted(problems, key=lambda p: (p.line, p.col))), skipped)


def decode_html(data: bytes) -> str | Problem:
    """UTF-8, else the charset a <meta> declares; undeclared non-UTF-8 bytes are a problem."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        declared = _META_CHARSET.search(data[:2048])
        if declared:
            try:
                return data.decode(codecs.lookup(declared[1].decode("ascii")).name, "replace")
            except LookupError:
                pass
        line, col = position(data, exc.start)
        return Problem(
            line,
            col,
            _(
                "texte qui n'est pas en UTF-8 (octet 0x{byte}) et aucun <meta charset> ne "
                "déclare un autre encodage"
            ).format(byte=f"{data[exc.start]:02x}"),
        )


def _static_problems(
    text: str, path: Path, root: Path | None
) -> tuple[list[Problem], list[_Script]]:
    scan = _scan(text)
    problems = structure_problems(_blank_templates(text, scan.templates), scan)
    if not scan.has_base:  # a <base href> moves every relative link elsewhere
        problems += link_problems(scan.links, path.parent, root)
    return problems, [s for s in scan.scripts if s.closed and "src" not in s.attrs]


# --- the stdlib pass: positions of links, scripts, templates, start tags -------------


class _Scanner(HTMLParser):
    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.result = _Scan()
        self._line_starts = _line_starts(text)
        self._script: _Script | None = None
        self._templates: list[int] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        line, col = self.getpos()
        tag_text = self.get_starttag_text() or ""
        end_line, end_col = _advance(line, col, tag_text)
        if tag not in VOID_ELEMENTS:
            self.result.open_tags.setdefault(tag, []).append((line, col))
        values = {name: value or "" for name, value in attrs}
        if tag == "base" and values.get("href"):
            self.result.has_base = True
        for name in ("href", "src"):
            value = values.get(name, "").strip()
            if value:
                at_line, at_col = _attribute_position(tag_text, name, line, col)
                self.result.links.append(_Link(value, at_line, at_col))
        if tag == "script":
            self._script = _Script(values, end_line, end_col)
            self.result.scripts.append(self._script)
        elif tag == "template":
            self._templates.append(self._offset(end_line, end_col))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # no end tag: in HTML `<div/>` opens a div (html5lib says so), as in browsers
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        opened = self.result.open_tags.get(tag)
        if opened:
            opened.pop()
        if tag == "script" and self._script is not None:
            self._script.closed = True
            self._script = None
        elif tag == "template" and self._templates:
            start = self._templates.pop()
            self.result.templates.append((start, self._offset(*self.getpos())))

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._script.parts.append(data)

    def _offset(self, line: int, col: int) -> int:
        return self._line_starts[line - 1] + col


def _scan(text: str) -> _Scan:
    scanner = _Scanner(text)
    scanner.feed(text)
    scanner.close()
    return scanner.result


# --- structure: html5lib, the HTML5 parsing algorithm browsers use ------------------


def structure_problems(text: str, scan: _Scan) -> list[Problem]:
    import html5lib  # imported on first use: ~40 ms, and only HTML needs it
    from html5lib.constants import E

    parser = html5lib.HTMLParser(namespaceHTMLElements=False)
    parser.parse(text)
    lines = text.split("\n")
    unclosed = [
        element.name
        for element in parser.tree.openElements
        if element.name not in OPTIONAL_END_TAGS
    ]
    problems: list[Problem] = []
    for (line, col), code, data in parser.errors:
        if code in _HARMLESS or "doctype" in code or "entity" in code:
            continue
        if code == "expected-closing-tag-but-got-eof" and unclosed:
            problems += _unclosed_problems(unclosed, scan, lines)
            continue
        problems.append(Problem(*_error_position(lines, line, col, data), _message(E, code, data)))
    return list(dict.fromkeys(problems))  # the parser may repeat itself at one position


def _unclosed_problems(names: list[str], scan: _Scan, lines: list[str]) -> list[Problem]:
    problems = []
    remaining = {name: list(scan.open_tags.get(name, [])) for name in names}
    for name in reversed(names):  # innermost first, matched with the latest start tag
        starts = remaining[name]
        if starts:
            line, col0 = starts.pop()
            line, col = line, col0 + 1
        else:
            line, col = end_position("\n".join(lines))
        problems.append(
            Problem(
                line, col, _("<{name}> n'est jamais fermé : </{name}> manque").format(name=name)
            )
        )
    return problems


def _error_position(
    lines: list[str], line: int, col: int, data: dict[str, Any] | None
) -> tuple[int, int]:
    """html5lib points just past the token; a tag error is shown at the tag's "<"."""
    if line > len(lines) or line < 1:
        return len(lines), len(lines[-1]) + 1
    if data and any(key in data for key in ("name", "gotName", "startName", "originalName")):
        start = lines[line - 1].rfind("<", 0, col)
        if start >= 0:
            return line, start + 1
    return line, max(col, 1)


def _message(catalogue: dict[str, str], code: str, data: dict[str, Any] | None) -> str:
    template = _MESSAGES.get(code)
    try:
        if template is not None:
            return _(template).format(**(data or {}))
        return catalogue[code] % (data or {})
    except (KeyError, TypeError, ValueError):
        return catalogue.get(code, code)


def _blank_templates(text: str, ranges: list[tuple[int, int]]) -> str:
    """html5lib 1.1 predates <template>: its content (any fragment) is not judged."""
    if not ranges:
        return text
    chars = list(text)
    for start, end in ranges:
        chars[start:end] = [c if c == "\n" else " " for c in text[start:end]]
    return "".join(chars)


# --- links --------------------------------------------------------------------------


def link_problems(links: list[_Link], folder: Path, root: Path | None) -> list[Problem]:
    problems = []
    for link in links:
        target = _local_target(link.value, folder)
        if target is None:
            continue
        if root is not None and not target.resolve().is_relative_to(root.resolve()):
            continue  # outside the workspace: not ours to judge
        if not target.exists():
            problems.append(
                Problem(
                    link.line,
                    link.col + 1,
                    _("« {link} » pointe vers un fichier qui n'existe pas ({path})").format(
                        link=link.value, path=_shown(target, folder, root)
                    ),
                )
            )
    return problems


def _local_target(value: str, folder: Path) -> Path | None:
    """The file a relative URL names, or None for anything else (web, anchors, templates)."""
    if any(marker in value for marker in _TEMPLATE_SYNTAX):
        return None
    try:
        parts = urlsplit(value)
    except ValueError:
        return None
    if parts.scheme or parts.netloc or not parts.path or parts.path.startswith("/"):
        # absolute URLs, mailto:, data:, #anchors, and site-root paths (the site root
        # is not necessarily this folder)
        return None
    return folder / unquote(parts.path)


def _shown(target: Path, folder: Path, root: Path | None) -> str:
    base = root if root is not None else folder
    try:
        return target.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return str(target)


# --- inline scripts -----------------------------------------------------------------


def _script_jobs(
    scripts: list[_Script], node: str | None
) -> tuple[list[Coroutine[Any, Any, Problem | None]], bool]:
    """One check per inline script; the flag says some JavaScript needed a missing node."""
    jobs: list[Coroutine[Any, Any, Problem | None]] = []
    needs_node = False
    limit = asyncio.Semaphore(MAX_PARALLEL_NODES)
    for script in scripts:
        code = "".join(script.parts)
        if not code.strip():
            continue
        kind = script.attrs.get("type", "").strip().lower()
        if kind in _JSON_TYPES:
            jobs.append(_json_script(script, code))
            continue
        mode = _JS_TYPES.get(kind)
        if mode is None:  # templates, shaders, text/babel...: not JavaScript a browser runs
            continue
        if node is None:
            needs_node = True
            continue
        jobs.append(_js_script(script, code, node, mode, limit))
    return jobs, needs_node


async def _js_script(
    script: _Script, code: str, node: str, mode: Mode, limit: asyncio.Semaphore
) -> Problem | None:
    async with limit:
        verdict = await check_code(node, code, mode)
    return _shift(verdict.problem, script) if verdict.problem else None


async def _json_script(script: _Script, code: str) -> Problem | None:
    problem = json_problem(code)
    return _shift(problem, script) if problem else None


def _shift(problem: Problem, script: _Script) -> Problem:
    """From a position inside the script to a position in the HTML file."""
    col = problem.col + script.col if problem.line == 1 else problem.col
    return Problem(script.line + problem.line - 1, col, problem.message)


# --- positions ----------------------------------------------------------------------


def _line_starts(text: str) -> list[int]:
    starts = [0]
    index = text.find("\n")
    while index >= 0:
        starts.append(index + 1)
        index = text.find("\n", index + 1)
    return starts


def _advance(line: int, col: int, text: str) -> tuple[int, int]:
    """The position after `text` when it starts at (line, 0-based col)."""
    newlines = text.count("\n")
    if not newlines:
        return line, col + len(text)
    return line + newlines, len(text) - text.rfind("\n") - 1


def _attribute_position(tag_text: str, name: str, line: int, col: int) -> tuple[int, int]:
    match = re.search(rf"(?<![\w:-]){name}\s*=\s*[\"']?", tag_text, re.IGNORECASE)
    if match is None:
        return line, col
    return _advance(line, col, tag_text[: match.end()])
