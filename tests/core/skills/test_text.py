"""Normalisation for routing: accents, case, whole words, file extensions."""

from __future__ import annotations

from loki_desktop.core.skills.text import (
    HEAD_CHARS,
    TAIL_CHARS,
    bounded,
    extensions,
    normalize,
    words,
)


def test_normalize_drops_accents_case_and_ligatures() -> None:
    assert (
        normalize("Élimine l'ŒUVRE dupliquée, ÇA débogue")
        == "elimine l'oeuvre dupliquee, ca debogue"
    )
    assert normalize("TypeError") == "typeerror"


def test_words_split_on_apostrophes_hyphens_and_punctuation() -> None:
    assert words(normalize("Qu'est-ce qu'un bug ? C'est-à-dire…")) == [
        "qu",
        "est",
        "ce",
        "qu",
        "un",
        "bug",
        "c",
        "est",
        "a",
        "dire",
    ]
    assert words("test_parse fails") == ["test_parse", "fails"]


def test_extension_is_not_also_a_word() -> None:
    text = normalize("Ouvre ventes.CSV puis un fichier .json, et data/x.tsv")
    assert extensions(text) == {".csv", ".json", ".tsv"}
    assert "csv" not in words(text)
    assert "json" not in words(text)
    assert "ventes" in words(text)


def test_sentence_end_is_not_an_extension() -> None:
    assert extensions(normalize("Fini. Ensuite on verra")) == set()


def test_bounded_keeps_the_head_and_the_tail_of_huge_messages() -> None:
    short = "x" * 100
    assert bounded(short) == short
    huge = "HEAD " + "y" * 100_000 + " TAIL"
    kept = bounded(huge)
    assert len(kept) == HEAD_CHARS + TAIL_CHARS + 1
    assert kept.startswith("HEAD")
    assert kept.endswith("TAIL")
