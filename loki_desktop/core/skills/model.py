"""A skill as the agent uses it: an expert method and the words that call for it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Skill:
    """One skill file, parsed.

    The routing fields hold terms as the file wrote them (see core.skills.terms):
    `keywords` are weak signals, `strong` strong ones, `pairs` an action word and its
    object ("corrig* fix* | bug* erreur*"), `extensions` file extensions (".csv").
    """

    name: str
    title: str
    description: str
    body: str
    keywords: tuple[str, ...] = ()
    strong: tuple[str, ...] = ()
    pairs: tuple[str, ...] = ()
    extensions: tuple[str, ...] = ()
    source: str = ""  # the file it came from (a package path for built-in skills)
    builtin: bool = False
