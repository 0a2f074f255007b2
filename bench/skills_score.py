"""Skills: score the router on a routing corpus (expected<TAB>language<TAB>message), per language.

    .venv/bin/python -m bench.skills_score skills/examples/fresh3.tsv [MORE.tsv ...]

prints, for each file, the accuracy per language, then every false positive (a method where
the line says `none`), every miss (`none` where a method was expected) and every wrong skill.
The router is the one a turn uses: the built-in skills, their rules and the example-based
opinion. Lines starting with "#" are comments; "\\n" inside a message stands for a line break;
the language column may be left out (the language is then "?"). tests/core/skills/test_corpus.py
scores the routing sets in skills/examples with these same functions.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from loki_desktop.core.skills.loader import load_router
from loki_desktop.core.skills.router import Router

NONE = "none"


@dataclass(frozen=True, slots=True)
class Example:
    """One line of a corpus: where it is, the skill it needs (or `none`), its text."""

    file: str
    line: int
    expected: str
    message: str
    language: str = ""


@dataclass(frozen=True, slots=True)
class Scored:
    example: Example
    got: str


@dataclass(slots=True)
class Score:
    """A corpus routed: right and total per language, and the lines routed wrongly."""

    right: Counter[str] = field(default_factory=Counter)
    total: Counter[str] = field(default_factory=Counter)
    wrong: list[Scored] = field(default_factory=list)

    @property
    def false_positives(self) -> list[Scored]:
        return [s for s in self.wrong if s.example.expected == NONE]

    @property
    def misses(self) -> list[Scored]:
        return [s for s in self.wrong if s.example.expected != NONE and s.got == NONE]

    @property
    def wrong_skill(self) -> list[Scored]:
        return [s for s in self.wrong if NONE not in (s.example.expected, s.got)]

    def accuracy(self, language: str) -> float:
        return self.right[language] / self.total[language]

    def line(self) -> str:
        scores = ", ".join(
            f"{lang} {self.right[lang]}/{self.total[lang]} = {self.accuracy(lang):.1%}"
            for lang in sorted(self.total)
        )
        return (
            f"{scores}; false positives {len(self.false_positives)}, "
            f"missed {len(self.misses)}, wrong skill {len(self.wrong_skill)}"
        )


def read_corpus(path: Path) -> list[Example]:
    examples = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        expected, *language, message = line.split("\t")
        text = message.replace("\\n", "\n")
        examples.append(Example(path.name, number, expected, text, "".join(language)))
    return examples


def picked(router: Router, example: Example) -> str:
    chosen = router.pick(example.message)
    return chosen.name if chosen else NONE


def score(router: Router, examples: list[Example]) -> Score:
    result = Score()
    for example in examples:
        got = picked(router, example)
        language = example.language or "?"
        result.total[language] += 1
        if got == example.expected:
            result.right[language] += 1
        else:
            result.wrong.append(Scored(example, got))
    return result


def report(name: str, result: Score) -> list[str]:
    lines = [f"{name}: {result.line()}"]
    groups = (
        ("false positives", result.false_positives),
        ("missed", result.misses),
        ("wrong skill", result.wrong_skill),
    )
    for title, rows in groups:
        if rows:
            lines.append(f"  {title}:")
        for s in rows:
            e = s.example
            lines.append(f"    {e.line} [{e.language or '?'}] {e.expected} -> {s.got}: {e.message}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path, help="TSV files to score")
    args = parser.parse_args(argv)
    router, _problems = load_router(None)
    try:
        for path in args.paths:
            print("\n".join(report(str(path), score(router, read_corpus(path)))))
    except BrokenPipeError:  # `| head` closed the pipe: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
