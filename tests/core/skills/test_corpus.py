"""Routing corpora: the held-out figures (leave-one-set-out), the training fit, no false positive.

Every labelled file in skills/examples is what the router's opinion learns from, the nine
routing sets (bench.skills_loso.ROUTING_SETS) included: heldout.tsv was written before the
first tuning; fresh.tsv before the stems; fresh2.tsv before the fallback existed;
fresh3.tsv blind, then a development set; dev4.tsv while tuning the rules (issue 21,
router4); fresh4.tsv blind again (router4); fresh5.tsv blind again (scored by the lead for
router6, training data since router7); fresh6.tsv blind again (13 personas, scored by the
lead for router7, training data since router8); fresh7.tsv blind again (13 other personas,
scored by the lead on router7 and router8, training data since router9). Since router6 they
are training data, so the shipped router scored on them is a training fit (TRAINING_FLOORS).
The honest figure is each set held out in turn, its opinion learned from every other file
(HELD_OUT_FLOORS, `python -m bench.skills_loso`); a new blind set is scored with `python -m
bench.skills_score PATH.tsv`, the scoring these tests use.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.skills_loso import ROUTING_SETS, held_out_scores, labelled_sets, total
from bench.skills_score import picked, read_corpus, score
from loki_desktop.core.skills.loader import load_builtin_skills, load_router, read_examples
from loki_desktop.core.skills.router import Router

EXAMPLES = Path(__file__).resolve().parents[3] / "skills" / "examples"
TUNED = (EXAMPLES / "labelled.tsv", EXAMPLES / "tuning.tsv", EXAMPLES / "heldout.tsv")
# Each routing set held out (router9: fresh7 learned, router8's constants kept; stacked
# decision with the shipped constants), rounded down: see the README's table for each row;
# dev4's false positives are someone else's outage, a train app down, a bug crashing a plane.
# fresh7 (blind on router8: fr 176/186 = 94.6 %, en 81/86 = 94.2 %, 2 false positives: a job
# title to translate, a percentage to compute; held out on router9: fr 177/186, en 81/86, 2).
# The 95 % in each language is not met on fresh, fresh2, dev4, fresh4 (en), fresh6
# and fresh7.
HELD_OUT_FLOORS = {
    "fresh.tsv": {"fr": 0.93, "en": 0.96},
    "fresh2.tsv": {"fr": 0.89, "en": 0.86},
    "fresh3.tsv": {"fr": 0.98, "en": 0.98},
    "dev4.tsv": {"fr": 0.94, "en": 0.89},
    "fresh4.tsv": {"fr": 0.96, "en": 0.94},
    "fresh5.tsv": {"fr": 0.97, "en": 0.95},
    "fresh6.tsv": {"fr": 0.93, "en": 0.91},
    "fresh7.tsv": {"fr": 0.94, "en": 0.94},
    "heldout.tsv": {"?": 0.98},
}
HELD_OUT_FALSE_POSITIVES = {name: 0 for name in HELD_OUT_FLOORS} | {
    "dev4.tsv": 3,
    "fresh7.tsv": 2,
}
# The shipped router on the same sets, learned from them: a check that it fits what it
# learned (router9: fresh4 fr 171/173, en 76/78; fresh5 fr 185/186, en 78/80; fresh6 fr
# 184/185, en 86/86; fresh7 fr 186/186, en 86/86; dev4 fr 306/315, en 289/301, one false
# positive).
TRAINING_FLOORS = {
    "fresh.tsv": {"fr": 0.95, "en": 1.0},
    "fresh2.tsv": {"fr": 0.93, "en": 0.94},
    "fresh3.tsv": {"fr": 1.0, "en": 1.0},
    "dev4.tsv": {"fr": 0.97, "en": 0.96},
    "fresh4.tsv": {"fr": 0.98, "en": 0.97},
    "fresh5.tsv": {"fr": 0.99, "en": 0.97},
    "fresh6.tsv": {"fr": 0.99, "en": 1.0},
    "fresh7.tsv": {"fr": 1.0, "en": 1.0},
    "heldout.tsv": {"?": 1.0},
}
TRAINING_FALSE_POSITIVES = {name: 0 for name in TRAINING_FLOORS} | {"dev4.tsv": 1}
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


def test_each_routing_set_held_out_keeps_its_measured_scores(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The honest figure: each set routed by a router whose opinion never learned it."""
    sets, held = labelled_sets()
    assert held == list(ROUTING_SETS) == sorted(HELD_OUT_FLOORS)
    scores = held_out_scores(sets, held)
    with capsys.disabled():
        for name, (_rules, stacked) in scores.items():
            print(f"\n{name} held out: {stacked.line()}")
        print(f"all held out: {total([stacked for _rules, stacked in scores.values()]).line()}")
    for name, (_rules, stacked) in scores.items():
        false_positives = [f"{s.example.line}: {s.got}" for s in stacked.false_positives]
        assert len(false_positives) <= HELD_OUT_FALSE_POSITIVES[name], (name, false_positives)
        for language, floor in HELD_OUT_FLOORS[name].items():
            assert stacked.accuracy(language) >= floor, (name, language)
    # the stack is what gives these figures: the rules alone get fewer right, more wrongly
    rules = total([rules for rules, _stacked in scores.values()])
    stacked = total([stacked for _rules, stacked in scores.values()])
    assert len(stacked.false_positives) < len(rules.false_positives)
    assert all(rules.accuracy(lang) < stacked.accuracy(lang) for lang in ("fr", "en"))


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


@pytest.mark.parametrize("name", sorted(TRAINING_FLOORS))
def test_the_router_fits_the_routing_sets_it_learned(
    name: str, router: Router, capsys: pytest.CaptureFixture[str]
) -> None:
    examples = read_corpus(EXAMPLES / name)
    floors = TRAINING_FLOORS[name]
    assert len(examples) >= 50
    assert {example.language or "?" for example in examples} == set(floors)
    result = score(router, examples)
    with capsys.disabled():
        print(f"\n{name}, learned: {result.line()}")
    false_positives = [
        f"{s.example.line}: {s.got}: {s.example.message}" for s in result.false_positives
    ]
    assert len(false_positives) <= TRAINING_FALSE_POSITIVES[name], "\n".join(false_positives)
    for language, floor in floors.items():
        assert result.accuracy(language) >= floor, language


# fresh8.tsv: 266 requests written blind by 13 more personas (a veterinarian, a beekeeper, a
# social worker...), scored once on router8 (FR 178/184 = 96.7 %, EN 79/82 = 96.3 %, no false
# positive) and once on router9 (FR 181/184 = 98.4 %, EN 79/82 = 96.3 %, none). Kept out of
# skills/examples, so never learned from: the shipped router must keep its blind score; the
# next round may learn from it (and then needs a new blind set).
BLIND_SET = Path(__file__).resolve().parents[2] / "corpus" / "skills" / "fresh8.tsv"


def test_the_last_blind_set_keeps_the_score_it_was_measured_at(router: Router) -> None:
    examples = read_corpus(BLIND_SET)
    assert len(examples) == 266
    result = score(router, examples)
    assert not result.false_positives, [s.example.message for s in result.false_positives]
    assert result.accuracy("fr") >= 0.98
    assert result.accuracy("en") >= 0.96
