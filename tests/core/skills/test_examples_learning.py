"""Learning the examples in bulk gives exactly the features routing computes one at a time."""

from __future__ import annotations

from loki_desktop.core.skills.examples import (
    ExampleModel,
    asks_for_help,
    features,
    many_features,
)
from loki_desktop.core.skills.loader import read_examples
from loki_desktop.core.skills.stems import shortest_stem, shortest_stems
from loki_desktop.core.skills.text import normalize, words


def test_bulk_stems_equal_one_word_stems() -> None:
    vocabulary = {w for row in read_examples() for w in words(normalize(row.message))}
    assert len(vocabulary) > 1000
    assert shortest_stems(vocabulary) == {word: shortest_stem(word) for word in vocabulary}


def test_bulk_features_equal_one_message_features() -> None:
    messages = [row.message for row in read_examples()]
    # an accent-heavy line, a line break and the separator the bulk path uses
    messages += ["Élimine l'ŒUVRE dupliquée\nÇA débogue", "a\x00b regroupées", ""]
    assert many_features(messages) == [features(message) for message in messages]


def test_a_model_learns_from_a_generator_and_from_nothing() -> None:
    rows = (("debug", "le serveur plante"), ("none", "bonjour toi"))
    model = ExampleModel(row for row in rows)
    assert model.labels == ("debug", "none")
    assert ExampleModel(iter(())).labels == ()


def test_a_message_asking_for_help_needs_less_resemblance() -> None:
    rows = [("debug", "le serveur plante au démarrage")] * 5 + [("none", "bonjour toi")] * 5
    model = ExampleModel(rows, none_bonus=50.0, help_bonus=0.0)
    allowed = frozenset({"debug"})
    assert asks_for_help("Pourquoi le serveur plante ?")
    assert not asks_for_help("le serveur plante")
    assert model.resemble("Pourquoi le serveur plante ?", allowed).label == "debug"
    assert model.resemble("le serveur plante", allowed).label == "none"
    # odds() leaves the relief out: the cross-validation applies each bias itself
    same = ExampleModel(rows, none_bonus=50.0, help_bonus=50.0)
    message = "Pourquoi le serveur plante ?"
    assert model.odds(message, allowed) == same.odds(message, allowed)
