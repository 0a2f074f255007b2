"""The router's decision: the rules' points and the examples' log-odds, weighed together.

Each skill gets a total: POINT per rule point (capped at MAX_POINTS), PICKED more when the
rules alone would pick it, ODDS per unit of the example-based opinion's log-odds over `none`
(capped at ±MAX_ODDS), plus its own bias. `none` gets NONE_BIAS, NONE_CUE when the message
wants an answer (a definitional question, an answer cue, a device's trouble), NONE_NOTHING
when the rules found nothing, NONE_HELP when it asks for help in so many words, and
NONE_MARGIN. The highest total wins. The numbers are a logistic regression over the labelled
sets, chosen leave-one-set-out (`python -m bench.skills_loso` prints the held-out figures);
NONE_MARGIN trades right answers for false positives and is chosen the same way.

A skill with no examples (a user's own) has no opinion to weigh: the rules decide for it as
they always did. When they pick it (THRESHOLD points and the best rule score), it is picked;
otherwise it does not compete.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from loki_desktop.core.skills.model import Skill

MAX_POINTS = 9
MAX_ODDS = 30.0
# Learned on the examples and the eight routing sets, each row's opinion from examples that
# never saw its set (bench/skills_stack_fit.py, router8: fresh6.tsv learned); across the
# eight held-out folds a point weighs 0.55-0.77, a unit of log-odds 0.71-0.76, the answer
# cue 2.9-3.7.
POINT = 0.647
PICKED = 0.28
ODDS = 0.739
BIAS: dict[str, float] = {
    "analyse-donnees": -0.364,
    "creation-web": -0.769,
    "debogage-systematique": -0.186,
    "redaction-structuree": -0.364,
    "refactor-sur": -0.126,
}
NONE_BIAS = 0.454
NONE_CUE = 3.461
NONE_NOTHING = 1.72
NONE_HELP = -0.42
# Refitted and held out set by set (router8), 2 would give 7 false positives over the eight
# routing sets, 3 gives 4 (none on any fresh set), 3.5 gives 2 for 1-3 points less a set.
NONE_MARGIN = 3.0
THRESHOLD = 3  # points the rules need to pick a skill (router.THRESHOLD re-exports it)


@dataclass(frozen=True, slots=True)
class Weighed:
    """One skill's total and what it is made of (what `skills --explain` prints)."""

    skill: Skill
    points: int  # its rule points, after any damping
    odds: float | None  # the opinion's log-odds over `none`; None when it has no examples
    total: float | None  # None when it has no examples: the rules decide for it


# a skill as weighed: the skill, its rule points, the opinion's odds and the total (both None
# for a skill with no examples); plain tuples, as this runs for every message
_Row = tuple[Skill, int, float | None, float | None]


@dataclass(frozen=True, slots=True)
class Verdict:
    """Every skill's total and `none`'s; `ruled` is a skill with no examples that the rules
    picked (it wins)."""

    rows: tuple[_Row, ...]
    none: float
    ruled: Skill | None = None
    winner: Skill | None = None

    @property
    def skills(self) -> tuple[Weighed, ...]:
        """Every skill weighed, best total first (skills with no examples last)."""
        ordered = sorted(self.rows, key=lambda row: math.inf if row[3] is None else -row[3])
        return tuple(Weighed(*row) for row in ordered)


def weigh(
    skills: Sequence[Skill],
    points: Mapping[str, int],
    picked: str | None,
    odds: Mapping[str, float],
    learned: frozenset[str],
    *,
    cue: bool,
    helped: bool,
) -> Verdict:
    """The stacked totals. `learned` names the skills the opinion has examples of."""
    rows: list[_Row] = []
    ruled = best = None
    best_total = -math.inf
    point, weight, bias = POINT, ODDS, BIAS  # locals: this runs for every message
    for skill in skills:
        name = skill.name
        got = points.get(name, 0)
        if name not in learned:
            rows.append((skill, got, None, None))
            ruled = skill if name == picked else ruled
            continue
        opinion = odds.get(name, 0.0)
        if not -MAX_ODDS <= opinion <= MAX_ODDS:
            opinion = MAX_ODDS if opinion > 0 else -MAX_ODDS
        total = (got if got < MAX_POINTS else MAX_POINTS) * point + weight * opinion
        total += bias.get(name, 0.0) + (PICKED if name == picked else 0.0)
        rows.append((skill, got, opinion, total))
        if total > best_total:
            best, best_total = skill, total
    none = NONE_BIAS + NONE_MARGIN
    none += (NONE_CUE if cue else 0.0) + (NONE_HELP if helped else 0.0)
    none += NONE_NOTHING if picked is None else 0.0
    winner = ruled if ruled is not None else best if best_total > none else None
    return Verdict(tuple(rows), none, ruled, winner)
