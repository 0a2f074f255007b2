"""The labelled routing corpus: accuracy printed, at least 95 %, no skill where none is needed.

tests/corpus/skills/labelled.tsv and tuning.tsv are the development sets the terms were tuned
on; heldout.tsv was written before the first tuning and fresh.tsv before the stems and the
second tuning: both are only measured (see their headers). fresh.tsv is scored per language.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from loki_desktop.core.skills.loader import load_builtin_skills
from loki_desktop.core.skills.router import Router

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "skills"
FILES = ("labelled.tsv", "heldout.tsv", "tuning.tsv")
FRESH = "fresh.tsv"
# The fresh set's accuracy as measured when it was last scored (fr 68.9 %, en 85.7 %, then
# 0 false positives): a floor against regressions, below the 95 % goal (not reached).
FRESH_FLOOR = {"fr": 0.66, "en": 0.82}
MIN_MESSAGES = 100
MIN_ACCURACY = 0.95


@dataclass(frozen=True)
class Example:
    file: str
    line: int
    expected: str
    message: str
    language: str = ""


def read_corpus(name: str) -> list[Example]:
    examples = []
    for number, line in enumerate((CORPUS / name).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        expected, *language, message = line.split("\t")
        text = message.replace("\\n", "\n")
        examples.append(Example(name, number, expected, text, "".join(language)))
    return examples


@pytest.fixture(scope="module")
def examples() -> list[Example]:
    return [example for name in FILES for example in read_corpus(name)]


def test_corpus_is_large_bilingual_and_covers_every_skill(examples: list[Example]) -> None:
    names = {skill.name for skill in load_builtin_skills().skills}
    labels = {example.expected for example in examples}
    assert len(examples) >= MIN_MESSAGES
    assert labels == names | {"none"}
    # many messages need no skill, so false positives are really measured
    assert sum(example.expected == "none" for example in examples) >= 40
    english = [e for e in examples if any(w in e.message.split() for w in ("the", "my", "a"))]
    assert len(english) >= 30


def test_routing_accuracy_on_the_corpus(
    examples: list[Example], capsys: pytest.CaptureFixture[str]
) -> None:
    router = Router(load_builtin_skills().skills)
    wrong: list[str] = []
    false_positives: list[str] = []
    correct_by_file = dict.fromkeys(FILES, 0)
    for example in examples:
        chosen = router.pick(example.message)
        got = chosen.name if chosen else "none"
        if got == example.expected:
            correct_by_file[example.file] += 1
            continue
        where = f"{example.file}:{example.line}"
        line = f"{where}: expected {example.expected}, got {got}: {example.message!r}"
        wrong.append(line)
        if example.expected == "none":
            false_positives.append(line)
    accuracy = sum(correct_by_file.values()) / len(examples)
    nones = sum(example.expected == "none" for example in examples)
    with capsys.disabled():
        print(f"\nskills routing corpus: {accuracy:.1%} of {len(examples)} messages", end="")
        for name in FILES:
            total = sum(example.file == name for example in examples)
            print(f"; {name} {correct_by_file[name]}/{total}", end="")
        print(f"; false positives {len(false_positives)}/{nones}")
        for line in wrong:
            print(f"  misrouted {line}")
    assert not false_positives, "\n".join(false_positives)
    assert accuracy >= MIN_ACCURACY, "\n".join(wrong)


def test_fresh_requests_never_get_a_skill_they_do_not_need_and_stay_above_the_floor(
    capsys: pytest.CaptureFixture[str],
) -> None:
    router = Router(load_builtin_skills().skills)
    examples = read_corpus(FRESH)
    assert len(examples) >= 150
    assert {example.language for example in examples} == {"fr", "en"}
    right = dict.fromkeys(FRESH_FLOOR, 0)
    total = dict.fromkeys(FRESH_FLOOR, 0)
    false_positives = []
    for example in examples:
        chosen = router.pick(example.message)
        got = chosen.name if chosen else "none"
        total[example.language] += 1
        right[example.language] += got == example.expected
        if example.expected == "none" and got != "none":
            false_positives.append(f"{FRESH}:{example.line}: {got}: {example.message!r}")
    with capsys.disabled():
        scores = ", ".join(f"{lang} {right[lang]}/{total[lang]}" for lang in FRESH_FLOOR)
        print(f"\nfresh routing set: {scores}; false positives {len(false_positives)}")
    assert not false_positives, "\n".join(false_positives)
    for language, floor in FRESH_FLOOR.items():
        assert right[language] / total[language] >= floor, language
