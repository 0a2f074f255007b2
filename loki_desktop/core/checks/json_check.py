"""The JSON check: the standard parser, with comments and trailing commas allowed in JSONC files."""

from __future__ import annotations

import json
import re
from pathlib import PurePath

from loki_desktop.core.checks.model import CheckResult
from loki_desktop.core.checks.source import Source, decode_utf8
from loki_desktop.core.events import Problem
from loki_desktop.core.i18n import _

# Files whose tools read "JSON with comments": flagging a comment there would be wrong.
_JSONC_NAME = re.compile(
    r"^(tsconfig|jsconfig)(\..+)?\.json$|^\.?devcontainer\.json$|^\.eslintrc\.json$"
    r"|^(tslint|\.babelrc|babel\.config|\.swcrc|api-extractor)\.json$"
)


def allows_comments(path: PurePath) -> bool:
    return (
        path.suffix.lower() == ".jsonc"
        or bool(_JSONC_NAME.match(path.name))
        or path.parent.name == ".vscode"
    )


async def check_json(source: Source) -> CheckResult:
    text = decode_utf8(source.data)
    if isinstance(text, Problem):
        return CheckResult((text,))
    problem = json_problem(text, jsonc=allows_comments(source.path))
    return CheckResult((problem,) if problem else ())


def json_problem(text: str, *, jsonc: bool = False) -> Problem | None:
    if jsonc:
        text = blank_comments(text)
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        # the parser's own message (Python's, in English) after Loki's framing
        return Problem(exc.lineno, exc.colno, _("JSON invalide : {error}").format(error=exc.msg))
    except RecursionError:
        return Problem(1, 1, _("JSON invalide : imbrication trop profonde"))
    return None


def blank_comments(text: str) -> str:
    """JSONC to JSON with every position kept: comments and trailing commas become spaces."""
    out = list(text)
    index, length = 0, len(text)
    in_string = False
    last_comma = -1  # a comma that is trailing if only blanks come before the next } or ]
    while index < length:
        char = text[index]
        if in_string:
            if char == "\\":
                index += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
            last_comma = -1
        elif text.startswith("//", index):
            end = text.find("\n", index)
            end = length if end < 0 else end
            out[index:end] = " " * (end - index)
            index = end
            continue
        elif text.startswith("/*", index):
            end = text.find("*/", index + 2)
            end = length if end < 0 else end + 2
            out[index:end] = [c if c == "\n" else " " for c in text[index:end]]
            index = end
            continue
        elif char == ",":
            last_comma = index
        elif char in "}]":
            if last_comma >= 0:
                out[last_comma] = " "
            last_comma = -1
        elif not char.isspace():
            last_comma = -1
        index += 1
    return "".join(out)
