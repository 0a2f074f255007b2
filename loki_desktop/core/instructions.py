"""The turn's instructions besides Loki's own: the person's, and the workspace's AGENTS.md.

AGENTS.md is the open convention Codex, Cursor, Goose, Jules and others share: a Markdown
file at the project's root telling agents how to work in it. It is read at most
MAX_AGENTS_MD_BYTES, in UTF-8, again only when its size or time changes; absent, it costs
one stat.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from loki_desktop.core.given_files import GivenFileError, GivenFileTooBig, read_given_file
from loki_desktop.core.i18n import _
from loki_desktop.core.settings import MAX_INSTRUCTIONS_CHARS

AGENTS_MD = "AGENTS.md"
MAX_AGENTS_MD_BYTES = 64 * 1024

PERSONAL_PART = """\
The user's own instructions for every answer (follow them unless they conflict with \
the rules above):
{text}
"""
AGENTS_MD_PART = """\
The workspace's AGENTS.md, the project's instructions for agents working in it:
{text}
"""


@dataclass(frozen=True, slots=True)
class AgentsMd:
    """The workspace's AGENTS.md as read (`text` empty when it could not be: `problem` says
    why, in one sentence)."""

    path: Path
    text: str = ""
    problem: str = ""


# path -> (its stat signature, what was read): a turn re-reads only a changed file
_read: dict[Path, tuple[tuple[int, int, int], AgentsMd]] = {}


def read_agents_md(root: Path) -> AgentsMd | None:
    """The AGENTS.md at the workspace's root (None: there is none)."""
    path = root / AGENTS_MD
    try:
        info = os.stat(path)
    except OSError:
        _read.pop(path, None)
        return None
    signature = (info.st_ino, info.st_size, info.st_mtime_ns)
    known = _read.get(path)
    if known is not None and known[0] == signature:
        return known[1]
    found = _load(path)
    _read[path] = (signature, found)
    return found


def _load(path: Path) -> AgentsMd:
    try:
        data = read_given_file(path, MAX_AGENTS_MD_BYTES)
    except GivenFileTooBig as exc:
        return AgentsMd(
            path,
            problem=_(
                "AGENTS.md pèse {size} Ko, plus que les {limit} Ko que Loki lit : il est laissé "
                "de côté."
            ).format(size=round(exc.size / 1024), limit=MAX_AGENTS_MD_BYTES // 1024),
        )
    except GivenFileError as exc:
        return AgentsMd(path, problem=str(exc))
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return AgentsMd(
            path,
            problem=_("AGENTS.md n'est pas écrit en UTF-8 : il est laissé de côté."),
        )
    return AgentsMd(path, text.strip())


def instruction_texts(personal: str, agents_md: AgentsMd | None) -> list[str]:
    """The system texts that follow Loki's own prompt, in order (model-facing)."""
    texts = []
    if personal.strip():
        texts.append(PERSONAL_PART.format(text=personal.strip()[:MAX_INSTRUCTIONS_CHARS]))
    if agents_md is not None and agents_md.text:
        texts.append(AGENTS_MD_PART.format(text=agents_md.text))
    return texts
