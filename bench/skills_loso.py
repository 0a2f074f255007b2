"""Skills: leave-one-set-out cross-validation of the router over every labelled set.

    .venv/bin/python -m bench.skills_loso [MORE.tsv ...] [--misses]

Each routing set in tests/corpus/skills (and each file given) is held out in turn and routed
twice: by the router as shipped (its rules, and the example-based opinion learned from
skills/examples only, which never saw any corpus set), and by the same rules with that
opinion learned from the examples AND every other set, at the shipped biases. The set held
out is never learned from, so the second row says what more labelled data would buy on
phrasings the opinion has not seen; both print per language, with false positives (a method
where the line says `none`) counted apart. A total over the held-out sets ends the report.

Read the rows with care: the rules themselves were tuned by hand on labelled.tsv,
tuning.tsv, heldout.tsv, fresh3.tsv and dev4.tsv, so only fresh4.tsv (scored blind, kept
from the tuning) and a new blind set given on the command line are clean for the rules too.
`bench.skills_cv` is the 10-fold cross-validation of the examples alone that chooses the
biases; `bench.skills_score` scores one set with the shipped router.
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
from loki_desktop.core.skills.loader import load_builtin_skills, load_examples, read_examples
from loki_desktop.core.skills.router import Router

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "corpus" / "skills"

LabelledSets = Mapping[str, Sequence[Example]]


def labelled_sets(more: Sequence[Path] = ()) -> tuple[dict[str, list[Example]], list[str]]:
    """Every labelled request by file name (the examples, the corpus sets, `more`), and the
    names of the sets to hold out in turn (the corpus sets and `more`, in that order)."""
    sets: dict[str, list[Example]] = {}
    for number, row in enumerate(read_examples(), 1):
        example = Example(row.file, number, row.label, row.message, row.language)
        sets.setdefault(f"examples/{row.file}", []).append(example)
    held: list[str] = []
    for path in (*sorted(CORPUS.glob("*.tsv")), *more):
        if path.name in sets:
            raise SystemExit(f"two sets are named {path.name}: rename one")
        sets[path.name] = read_corpus(path)
        held.append(path.name)
    return sets, held


def learned_without(sets: LabelledSets, held_out: str) -> ExampleModel:
    """The example-based opinion learned from every set but `held_out`, at the shipped biases."""
    return ExampleModel(
        (example.expected, example.message)
        for name, examples in sets.items()
        if name != held_out
        for example in examples
    )


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
    skills = load_builtin_skills().skills
    shipped = Router(skills, load_examples())
    rows: dict[str, list[Score]] = {"shipped": [], "more": []}
    try:
        for name in held:
            examples = sets[name]
            widened = Router(skills, learned_without(sets, name))
            before, after = score(shipped, list(examples)), score(widened, list(examples))
            rows["shipped"].append(before)
            rows["more"].append(after)
            print(f"{name} ({describe(examples)})")
            print(f"  shipped router:               {before.line()}")
            print(f"  learned from every other set: {after.line()}")
            if args.misses:
                print("\n".join("  " + line for line in report(name, after)[1:]))
        print(f"all held-out sets ({sum(len(sets[name]) for name in held)} requests)")
        print(f"  shipped router:               {total(rows['shipped']).line()}")
        print(f"  learned from every other set: {total(rows['more']).line()}")
    except BrokenPipeError:  # `| head` closed the pipe: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
