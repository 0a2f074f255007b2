"""Routing corpora: accuracy printed, no skill where none is needed, floors per language.

skills/examples/labelled.tsv and tuning.tsv are what the rules were tuned on; they and
everyday.tsv, plain.tsv and trades.tsv (never used to tune the rules) are what the
example-based fallback learns from, and its none-bias is chosen by cross-validation on them
(bench/skills_cv.py). tests/corpus/skills/heldout.tsv was written before the first tuning;
fresh.tsv before the stems and the second tuning; fresh2.tsv before the fallback existed.
The held-out sets are only measured (see their headers).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.skills_cv import chosen_bias, cross_validate, summary
from loki_desktop.core.skills.examples import NONE_BONUS
from loki_desktop.core.skills.loader import load_builtin_skills, load_router, read_examples
from loki_desktop.core.skills.router import Router

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "skills"
EXAMPLES = Path(__file__).resolve().parents[3] / "skills" / "examples"
TUNED = (EXAMPLES / "labelled.tsv", EXAMPLES / "tuning.tsv", CORPUS / "heldout.tsv")
# Each fresh set's accuracy when last scored (after the fourth round of examples), rounded
# down: floors against regressions, below the 95 % goal, which is not reached (fresh:
# fr 87.4 %, en 94.6 %; fresh2: fr 81.3 %, en 75.9 %; no false positive in either).
FRESH_FLOORS = {
    "fresh.tsv": {"fr": 0.86, "en": 0.94},
    "fresh2.tsv": {"fr": 0.80, "en": 0.74},
    # written blind by someone who saw neither the router nor any corpus, scored once after
    # the fifth round (fr 146/156 = 93.6 %, en 63/66 = 95.5 %), never tuned against
    "fresh3.tsv": {"fr": 0.93, "en": 0.95},
}
# False positives each set had when last scored: fresh3's two near-misses (« Qui a écrit le
# rapport Brundtland ? » → writing, « J'ai trouvé un bug dans un jeu Nintendo, à qui je dois
# le signaler ? » → debugging) are left as measured rather than tuned away.
KNOWN_FALSE_POSITIVES = {"fresh.tsv": 0, "fresh2.tsv": 0, "fresh3.tsv": 2}
MIN_ACCURACY = 0.95


@dataclass(frozen=True)
class Example:
    file: str
    line: int
    expected: str
    message: str
    language: str = ""


def read_corpus(path: Path) -> list[Example]:
    examples = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        expected, *language, message = line.split("\t")
        text = message.replace("\\n", "\n")
        examples.append(Example(path.name, number, expected, text, "".join(language)))
    return examples


@pytest.fixture(scope="module")
def router() -> Router:
    built, _notices = load_router(None)
    return built


def picked(router: Router, example: Example) -> str:
    chosen = router.pick(example.message)
    return chosen.name if chosen else "none"


def test_the_examples_are_many_bilingual_and_cover_every_skill() -> None:
    examples = read_examples()
    names = {skill.name for skill in load_builtin_skills().skills}
    assert len(examples) >= 1000
    assert {example.label for example in examples} == names | {"none"}
    # many requests need no skill, so false positives are really measured (and learned)
    assert sum(example.label == "none" for example in examples) >= 200
    assert sum(example.language == "en" for example in examples) >= 300
    assert sum(example.language == "fr" for example in examples) >= 500


def test_the_none_bias_gives_no_false_positive_in_cross_validation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The examples never inject a method into a request labelled `none` that they did not
    learn from: NONE_BONUS must stay at least what the cross-validation chooses (adding an
    example file can raise it: rerun `python -m bench.skills_cv`)."""
    outcomes = cross_validate(read_examples())
    with capsys.disabled():
        print(f"\nskills routing, 10-fold cross-validation: {summary(outcomes, NONE_BONUS)}")
    assert chosen_bias(outcomes) <= NONE_BONUS
    added = [
        o.row.message
        for o in outcomes
        if o.row.label == "none" and o.rules is None and o.decided(NONE_BONUS) != "none"
    ]
    assert not added, added


def test_routing_accuracy_on_the_tuned_sets(
    router: Router, capsys: pytest.CaptureFixture[str]
) -> None:
    examples = [example for path in TUNED for example in read_corpus(path)]
    wrong = [e for e in examples if picked(router, e) != e.expected]
    false_positives = [e for e in wrong if e.expected == "none"]
    accuracy = 1 - len(wrong) / len(examples)
    with capsys.disabled():
        print(f"\nskills routing, tuned sets: {accuracy:.1%} of {len(examples)} requests")
        for e in wrong:
            print(f"  misrouted {e.file}:{e.line}: expected {e.expected}: {e.message!r}")
    assert not false_positives, false_positives
    assert accuracy >= MIN_ACCURACY


@pytest.mark.parametrize("name", sorted(FRESH_FLOORS))
def test_fresh_requests_keep_their_measured_scores(
    name: str, router: Router, capsys: pytest.CaptureFixture[str]
) -> None:
    examples = read_corpus(CORPUS / name)
    floors = FRESH_FLOORS[name]
    assert len(examples) >= 150
    assert {example.language for example in examples} == set(floors)
    right = dict.fromkeys(floors, 0)
    total = dict.fromkeys(floors, 0)
    false_positives = []
    for example in examples:
        got = picked(router, example)
        total[example.language] += 1
        right[example.language] += got == example.expected
        if example.expected == "none" and got != "none":
            false_positives.append(f"{name}:{example.line}: {got}: {example.message!r}")
    with capsys.disabled():
        scores = ", ".join(f"{lang} {right[lang]}/{total[lang]}" for lang in floors)
        print(f"\n{name}: {scores}; false positives {len(false_positives)}")
    assert len(false_positives) <= KNOWN_FALSE_POSITIVES[name], "\n".join(false_positives)
    for language, floor in floors.items():
        assert right[language] / total[language] >= floor, language
