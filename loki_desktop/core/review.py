"""The self-review pass: after the answer, one call checks it against the request (and the
checks of the files written); a real problem is sent back for one fix in the same turn."""

from __future__ import annotations

import re
from collections.abc import Iterable

from loki_desktop.core.events import CheckReport

# model-facing
REVIEW_SYSTEM = """\
You review an assistant's answer before the user reads it. Compare it with the user's \
request and with the automatic checks of the files it wrote. If the answer does what was \
asked and nothing in it is wrong, reply with the single word OK. Otherwise reply with \
FIX: followed by the real problems, in one or two sentences (not style, not wording)."""

_OK = re.compile(r"^\W*(ok|okay|rien [aà] changer|nothing to change)\W*$", re.IGNORECASE)
_FIX = re.compile(r"^\W*(fix|corriger|probleme|problem)\s*:\s*", re.IGNORECASE)


def review_input(
    request: str, answer: str, written: Iterable[str], failing: Iterable[CheckReport]
) -> str:
    """The review call's user message."""
    failing = list(failing)
    bad = {report.path for report in failing}
    files = [f"- {path}: {'check FAILS' if path in bad else 'check passes'}" for path in written]
    problems = [p.located(r.path) for r in failing for p in r.problems]
    parts = [f"User's request:\n{request}", f"Assistant's answer:\n{answer}"]
    if files:
        parts.append("Files written in this turn:\n" + "\n".join(sorted(files)))
    if problems:
        parts.append("Problems the checks still find:\n" + "\n".join(problems))
    return "\n\n".join(parts)


def parse_review(text: str) -> str | None:
    """None when the review found nothing to change; else the problem it names. A reply
    that is neither OK nor FIX: counts as nothing to change (one pass, no guessing)."""
    first = text.strip()
    if not first or _OK.match(first):
        return None
    fix = _FIX.match(first)
    if fix is None:
        return None
    problem = first[fix.end() :].strip()
    return problem or None


def review_followup(problem: str) -> str:
    """The harness note that sends the answer back for its one fix (model-facing)."""
    return (
        "A review of your answer found a problem: "
        + problem
        + "\nFix it now (use the tools if files must change), then give the corrected answer."
    )
