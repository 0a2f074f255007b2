"""Skills: leave-one-set-out cross-validation of the router over every routing set.

    .venv/bin/python -m bench.skills_loso [MORE.tsv ...] [--misses]

The router's opinion learns from every file in skills/examples, the nine routing sets
(ROUTING_SETS) included, so the shipped router scored on one of them is a training fit.
The honest figure holds a whole set out: each routing set (and each file given) is routed
by the rules alone, then by the stacked decision (core.skills.stack, its constants as
shipped) with the opinion learned from every OTHER file. Per language, with false positives
(a method where the line says `none`) counted apart; a total over the held-out sets ends it.

Read the rows with care: the rules were tuned by hand on labelled.tsv, tuning.tsv,
heldout.tsv, fresh3.tsv and dev4.tsv, and the stack's twelve numbers were fitted on every
set (bench/skills_stack_fit.py refits them fold by fold: that is the fully held-out figure);
only a new blind set given on the command line is clean for everything.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from bench.skills_score import NONE, Example, Score, read_corpus, report, score
from loki_desktop.core.skills.examples import ExampleModel
from loki_desktop.core.skills.loader import load_builtin_skills, read_examples
from loki_desktop.core.skills.router import Router

EXAMPLES = Path(__file__).resolve().parents[1] / "skills" / "examples"
# the sets written to measure routing (see each file's header), held out in turn
ROUTING_SETS = (
    "dev4.tsv",
    "fresh.tsv",
    "fresh2.tsv",
    "fresh3.tsv",
    "fresh4.tsv",
    "fresh5.tsv",
    "fresh6.tsv",
    "fresh7.tsv",
    "heldout.tsv",
)

LabelledSets = Mapping[str, Sequence[Example]]


def labelled_sets(more: Sequence[Path] = ()) -> tuple[dict[str, list[Example]], list[str]]:
    """Every labelled request by file name (skills/examples and `more`), and the names of
    the sets to hold out in turn (the routing sets and `more`, in that order)."""
    sets: dict[str, list[Example]] = {}
    for number, row in enumerate(read_examples(), 1):
        example = Example(row.file, number, row.label, row.message, row.language)
        sets.setdefault(row.file, []).append(example)
    for name in ROUTING_SETS:  # read again for their line numbers (what --misses prints)
        sets[name] = read_corpus(EXAMPLES / name)
    held = list(ROUTING_SETS)
    for path in more:
        if path.name in sets:
            raise SystemExit(f"two sets are named {path.name}: rename one")
        sets[path.name] = read_corpus(path)
        held.append(path.name)
    return sets, held


def learned_without(sets: LabelledSets, held_out: str) -> ExampleModel:
    """The example-based opinion learned from every set but `held_out`."""
    return ExampleModel(
        (example.expected, example.message)
        for name, examples in sets.items()
        if name != held_out
        for example in examples
    )


def held_out_scores(sets: LabelledSets, held: Sequence[str]) -> dict[str, tuple[Score, Score]]:
    """Per held-out set: the rules alone, and the stacked router that never learned it."""
    skills = load_builtin_skills().skills
    rules = Router(skills)
    return {
        name: (
            score(rules, list(sets[name])),
            score(Router(skills, learned_without(sets, name)), list(sets[name])),
        )
        for name in held
    }


def describe(examples: Sequence[Example]) -> str:
    """ "251 requests: 173 fr, 78 en; 56 need no method"."""
    languages = Counter(example.language or "?" for example in examples)
    per_language = ", ".join(f"{count} {lang}" for lang, count in sorted(languages.items()))
    needless = sum(example.expected == NONE for example in examples)
    return f"{len(examples)} requests: {per_language}; {needless} need no method"


def total(scores: Sequence[Score]) -> Score:
    """The held-out sets' scores added up, per language."""
    summed = Score()
    for part in scores:
        summed.right.update(part.right)
        summed.total.update(part.total)
        summed.wrong.extend(part.wrong)
    return summed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("more", nargs="*", type=Path, help="more TSV sets to hold out in turn")
    parser.add_argument("--misses", action="store_true", help="list what the second row misses")
    args = parser.parse_args(argv)
    sets, held = labelled_sets(args.more)
    rows: dict[str, list[Score]] = {"rules": [], "stacked": []}
    try:
        for name, (rules, stacked) in held_out_scores(sets, held).items():
            rows["rules"].append(rules)
            rows["stacked"].append(stacked)
            print(f"{name} ({describe(sets[name])})")
            print(f"  rules alone:                      {rules.line()}")
            print(f"  stacked, never learned from it:   {stacked.line()}")
            if args.misses:
                print("\n".join("  " + line for line in report(name, stacked)[1:]))
        print(f"all held-out sets ({sum(len(sets[name]) for name in held)} requests)")
        print(f"  rules alone:                      {total(rows['rules']).line()}")
        print(f"  stacked, never learned from it:   {total(rows['stacked']).line()}")
    except BrokenPipeError:  # `| head` closed the pipe: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
