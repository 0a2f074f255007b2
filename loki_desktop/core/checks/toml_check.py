"""The TOML check: the standard library's tomllib parser."""

from __future__ import annotations

import re
import tomllib

from loki_desktop.core.checks.model import CheckResult
from loki_desktop.core.checks.source import Source, decode_utf8, end_position
from loki_desktop.core.events import Problem
from loki_desktop.core.i18n import _

# tomllib (3.11) puts the position only in the message: "... (at line 3, column 5)".
_AT_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")
_AT_END = " (at end of document)"


async def check_toml(source: Source) -> CheckResult:
    text = decode_utf8(source.data)
    if isinstance(text, Problem):
        return CheckResult((text,))
    problem = toml_problem(text)
    return CheckResult((problem,) if problem else ())


def toml_problem(text: str) -> Problem | None:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = _AT_POSITION.search(message)
        if match:
            line, col = int(match[1]), int(match[2])
            message = message[: match.start()]
        elif message.endswith(_AT_END):
            line, col = end_position(text)
            message = message.removesuffix(_AT_END)
        else:
            line, col = 1, 1
        # tomllib's own message (in English) after Loki's framing
        return Problem(line, col, _("TOML invalide : {error}").format(error=message))
    except RecursionError:
        return Problem(1, 1, _("TOML invalide : imbrication trop profonde"))
    return None
