"""Skills: k-fold cross-validation of the router on its own examples; chooses the none-bias.

`python -m bench.skills_cv` splits skills/examples/*.tsv into FOLDS parts; for each part the
example-based opinion learns from the others and the router (rules + that opinion) routes the
part it never saw. It prints, for a sweep of `none` biases, the accuracy per language and the
false positives (a method where the label says none), over every example and over each file,
then the bias to use: the smallest at which the examples add no false positive to the rules'
own, plus BIAS_MARGIN; once for the messages that ask for help (HELP_BONUS) and once for
the others (NONE_BONUS). Only the examples are read: the held-out sets in tests/corpus are
never looked at here, so the number chosen is not fitted to them.

The rules were tuned by hand on labelled.tsv and tuning.tsv, so their rows are optimistic;
everyday.tsv was never used to tune the rules, which makes its rows the honest estimate.
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from dataclasses import dataclass

from loki_desktop.core.skills.examples import NONE, ExampleModel, asks_for_help
from loki_desktop.core.skills.loader import LabelledRequest, load_builtin_skills, read_examples
from loki_desktop.core.skills.router import Router

FOLDS = 10
SEED = 1
BIASES = (0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0)
BIAS_MARGIN = 0.5  # above the largest log-odds a `none` example reached in the folds


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one example fared when it was held out: the rules' pick, else the opinion's odds."""

    row: LabelledRequest
    rules: str | None  # the rules' pick; None when they found nothing
    damped: bool  # a definitional question: the opinion is not asked
    label: str  # the opinion's likeliest skill
    odds: float  # its log-odds over `none`, with no bias
    helped: bool  # the message asks for help: HELP_BONUS applies instead of NONE_BONUS

    def decided(self, bias: float, help_bias: float | None = None) -> str:
        if self.rules is not None:
            return self.rules
        threshold = help_bias if self.helped and help_bias is not None else bias
        if self.damped or self.odds <= threshold:
            return NONE
        return self.label


def cross_validate(rows: tuple[LabelledRequest, ...], folds: int = FOLDS) -> list[Outcome]:
    skills = load_builtin_skills().skills
    names = frozenset(skill.name for skill in skills)
    rules = Router(skills)
    order = list(range(len(rows)))
    random.Random(SEED).shuffle(order)
    outcomes = []
    for fold in range(folds):
        held = set(order[fold::folds])
        model = ExampleModel(
            ((row.label, row.message) for i, row in enumerate(rows) if i not in held),
            none_bonus=0.0,
        )
        for i in sorted(held):
            row = rows[i]
            routing = rules.route(row.message)
            label, odds = model.odds(row.message, names)
            picked = routing.skill.name if routing.skill else None
            damped = routing.damped_by is not None
            helped = asks_for_help(row.message)
            outcomes.append(Outcome(row, picked, damped, label, odds, helped))
    return outcomes


def summary(outcomes: list[Outcome], bias: float, help_bias: float | None = None) -> str:
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    false_positives = 0
    for outcome in outcomes:
        got = outcome.decided(bias, help_bias)
        language = outcome.row.language or "?"
        total[language] += 1
        right[language] += got == outcome.row.label
        false_positives += outcome.row.label == NONE and got != NONE
    scores = ", ".join(
        f"{lang} {right[lang] / total[lang]:.1%} ({right[lang]}/{total[lang]})"
        for lang in sorted(total)
    )
    return f"{scores}; false positives {false_positives}"


def chosen_bias(outcomes: list[Outcome], helped: bool | None = None) -> float:
    """The smallest bias at which no `none` example is given a method by the opinion: over
    every example, or only those that ask for help (`helped` True) or do not (False)."""
    asked = [
        o.odds
        for o in outcomes
        if o.row.label == NONE
        and o.rules is None
        and not o.damped
        and (helped is None or o.helped == helped)
    ]
    return max(0.0, max(asked, default=0.0)) + BIAS_MARGIN


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="list the misrouted examples")
    args = parser.parse_args()
    rows = read_examples()
    outcomes = cross_validate(rows)
    files = sorted({row.file for row in rows})
    bias = chosen_bias(outcomes, helped=False)
    help_bias = chosen_bias(outcomes, helped=True)
    print(f"{len(rows)} examples, {FOLDS}-fold cross-validation")
    print(f"rules alone: {summary([o for o in outcomes], float('inf'))}")
    for candidate in BIASES:
        print(f"bias {candidate:5.2f}: {summary(outcomes, candidate)}")
    print(f"chosen: bias {bias:.2f}, {help_bias:.2f} when the message asks for help")
    print(f"    all: {summary(outcomes, bias, help_bias)}")
    for name in files:
        part = [o for o in outcomes if o.row.file == name]
        print(f"    {name}: {summary(part, bias, help_bias)}")
    if args.misses:
        for outcome in outcomes:
            got = outcome.decided(bias, help_bias)
            if got != outcome.row.label:
                print(
                    f"  {outcome.row.label} -> {got} ({outcome.label} {outcome.odds:+.1f}) "
                    f"[{outcome.row.file}] {outcome.row.message[:100]!r}"
                )


if __name__ == "__main__":
    main()
