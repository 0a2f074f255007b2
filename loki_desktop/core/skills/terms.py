"""The routing terms a skill file writes, parsed and checked: words, phrases, wildcards, pairs.

    bug, stack trace     a word or a phrase, matched as whole words ("plan" never in "planète")
    corrig*              a word starting with "corrig" (corrige, corriger, corrigez, corrigé)
    *error               a word ending with "error" after at least two letters (TypeError)
    .csv                 a file extension ("ventes.csv", "un fichier .csv")
    a* b | c d*          (pairs only) a word of the left group within a few words of the right

Terms are normalised like messages: no accents, no case.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from loki_desktop.core.i18n import _
from loki_desktop.core.skills.text import normalize, words

MIN_STEM = 3  # "a*" would match half the language
SUFFIX_MIN_PREFIX = 2  # "*error" matches "oserror" but neither "error" nor "terror"

_ONE_WORD = re.compile(r"[a-z0-9_]+")
_EXTENSION = re.compile(r"\.[a-z0-9]{1,10}")


class TermError(ValueError):
    """A routing term the router cannot use (the message is French, for the user)."""


@dataclass(frozen=True, slots=True)
class Phrase:
    words: tuple[str, ...]

    @property
    def text(self) -> str:
        return " ".join(self.words)


@dataclass(frozen=True, slots=True)
class Prefix:
    stem: str


@dataclass(frozen=True, slots=True)
class Suffix:
    tail: str


@dataclass(frozen=True, slots=True)
class Extension:
    dotted: str


Term = Phrase | Prefix | Suffix | Extension
WordTerm = Phrase | Prefix | Suffix  # what one side of a pair is made of (one word each)


@dataclass(frozen=True, slots=True)
class Pair:
    left: tuple[WordTerm, ...]
    right: tuple[WordTerm, ...]


def parse_term(raw: str) -> Term:
    text = raw.strip()
    if not text:
        raise TermError(_("terme vide"))
    if text.startswith("."):
        dotted = normalize(text)
        if not _EXTENSION.fullmatch(dotted):
            raise TermError(_("extension invalide : « {term} »").format(term=raw))
        return Extension(dotted)
    if text.endswith("*") and not text.startswith("*"):
        return Prefix(_wildcard_word(text[:-1], raw))
    if text.startswith("*") and not text.endswith("*"):
        return Suffix(_wildcard_word(text[1:], raw))
    if "*" in text:
        raise TermError(
            _("« * » seulement au début ou à la fin d'un mot : « {term} »").format(term=raw)
        )
    phrase = tuple(words(normalize(text)))
    if not phrase:
        raise TermError(_("terme sans lettres ni chiffres : « {term} »").format(term=raw))
    return Phrase(phrase)


def parse_pair(raw: str) -> Pair:
    sides = raw.split("|")
    if len(sides) != 2:
        raise TermError(
            _("une paire s'écrit « mots d'action | mots objets » : « {term} »").format(term=raw)
        )
    left, right = (_pair_side(side, raw) for side in sides)
    return Pair(left, right)


def _pair_side(side: str, raw: str) -> tuple[WordTerm, ...]:
    terms: list[WordTerm] = []
    for item in side.split():
        term = parse_term(item)
        if isinstance(term, Extension) or (isinstance(term, Phrase) and len(term.words) != 1):
            raise TermError(
                _("chaque côté d'une paire est une liste de mots simples : « {term} »").format(
                    term=raw
                )
            )
        terms.append(term)
    if not terms:
        raise TermError(_("un côté de la paire est vide : « {term} »").format(term=raw))
    return tuple(terms)


def _wildcard_word(part: str, raw: str) -> str:
    word = normalize(part)
    if not _ONE_WORD.fullmatch(word) or len(word) < MIN_STEM:
        raise TermError(
            _("un joker « * » s'applique à un seul mot d'au moins {n} lettres : « {term} »").format(
                n=MIN_STEM, term=raw
            )
        )
    return word
