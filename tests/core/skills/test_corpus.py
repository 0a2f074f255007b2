"""Routing corpora: accuracy printed, no skill where none is needed, floors per language.

skills/examples/labelled.tsv and tuning.tsv are what the rules were tuned on; they and
everyday.tsv, plain.tsv and trades.tsv (never used to tune the rules) are what the
example-based fallback learns from, and its none-bias is chosen by cross-validation on them
(bench/skills_cv.py). tests/corpus/skills/heldout.tsv was written before the first tuning;
fresh.tsv before the stems and the second tuning; fresh2.tsv before the fallback existed;
fresh3.tsv blind, by someone who saw neither the router nor any corpus; dev4.tsv while tuning
the router (issue 21, router4), each batch scored before its fixes; fresh4.tsv blind again,
scored once before and once after that round. fresh and fresh2 are
only measured (see their headers). fresh3 was scored once blind and then became a
DEVELOPMENT set: its misses were studied and fixed with general rules (answer cues, terms),
so its figures here are optimistic; a new blind set is scored with `python -m
bench.skills_score PATH.tsv`, which is the scoring these tests use.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.skills_cv import chosen_bias, cross_validate, summary
from bench.skills_score import picked, read_corpus, score
from loki_desktop.core.skills.examples import HELP_BONUS, NONE_BONUS
from loki_desktop.core.skills.loader import load_builtin_skills, load_router, read_examples
from loki_desktop.core.skills.router import Router

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "skills"
EXAMPLES = Path(__file__).resolve().parents[3] / "skills" / "examples"
TUNED = (EXAMPLES / "labelled.tsv", EXAMPLES / "tuning.tsv", CORPUS / "heldout.tsv")
# Each set's accuracy when last scored (router4: answer cues, told actions, more terms, a
# smaller none-bias for messages asking for help), rounded down: floors against regressions.
# fresh: fr 94/103 = 91.3 %, en 54/56 = 96.4 %; fresh2: fr 84/96 = 87.5 %, en 46/58 = 79.3 %,
# both below the 95 % goal.
FRESH_FLOORS = {
    "fresh.tsv": {"fr": 0.91, "en": 0.96},
    "fresh2.tsv": {"fr": 0.87, "en": 0.79},
    # Scored once blind after the fifth round (fr 146/156 = 93.6 %, en 63/66 = 95.5 %, two
    # false positives); since then a DEVELOPMENT set, tuned against with general rules:
    # fr 155/156 = 99.4 %, en 65/66 = 98.5 %, no false positive. Not evidence of
    # generalization any more: a new blind set is.
    "fresh3.tsv": {"fr": 0.99, "en": 0.98},
    # Development batches written while tuning (see its header for each batch's first score):
    # fr 289/315 = 91.7 %, en 267/301 = 88.7 %. Its six false positives are left as measured:
    # outages of someone else's service ("Le site de la SNCF ne marche pas ce matin, tu sais
    # pourquoi ?"), an article read about technical debt, a question about average salaries,
    # whether a software bug can crash a plane.
    "dev4.tsv": {"fr": 0.91, "en": 0.88},
    # Written blind for this round (the five skills' names and descriptions only), never seen
    # by whoever tuned, scored once before the round (fr 151/173 = 87.3 %, en 67/78 = 85.9 %,
    # five false positives) and once after: fr 154/173 = 89.0 %, en 69/78 = 88.5 %, four
    # false positives. The 95 % is not met on it; now spent, a floor like the others.
    "fresh4.tsv": {"fr": 0.89, "en": 0.88},
}
KNOWN_FALSE_POSITIVES = {
    "fresh.tsv": 0,
    "fresh2.tsv": 0,
    "fresh3.tsv": 0,
    "dev4.tsv": 6,
    "fresh4.tsv": 4,
}
MIN_ACCURACY = 0.95


@pytest.fixture(scope="module")
def router() -> Router:
    built, _notices = load_router(None)
    return built


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
    learn from: NONE_BONUS and HELP_BONUS must stay at least what the cross-validation
    chooses (adding an example file can raise them: rerun `python -m bench.skills_cv`)."""
    outcomes = cross_validate(read_examples())
    with capsys.disabled():
        scores = summary(outcomes, NONE_BONUS, HELP_BONUS)
        print(f"\nskills routing, 10-fold cross-validation: {scores}")
    assert chosen_bias(outcomes, helped=False) <= NONE_BONUS
    assert chosen_bias(outcomes, helped=True) <= HELP_BONUS
    assert any(o.helped for o in outcomes)
    assert not all(o.helped for o in outcomes)
    added = [
        o.row.message
        for o in outcomes
        if o.row.label == "none" and o.rules is None and o.decided(NONE_BONUS, HELP_BONUS) != "none"
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
    result = score(router, examples)
    with capsys.disabled():
        print(f"\n{name}: {result.line()}")
    false_positives = [
        f"{s.example.line}: {s.got}: {s.example.message}" for s in result.false_positives
    ]
    assert len(false_positives) <= KNOWN_FALSE_POSITIVES[name], "\n".join(false_positives)
    for language, floor in floors.items():
        assert result.accuracy(language) >= floor, language
