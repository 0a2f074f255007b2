"""Snowball stems of routing words, French and English, so one term covers its inflections.

"regroupées", "regrouper" and "regroupement" share the stem "regroup"; "renders" and
"rendering" share "render". A word gets both languages' stems (messages and skill files mix
French and English, and a wrong-language stem of a word rarely equals another word's stem);
a term matches a word when they share one. Stems are taken from accent-free words, like
everything the router reads, so the French stem's last "e" is dropped ("affiche" and
"affichée" both give "affich").
"""

from __future__ import annotations

from collections.abc import Collection
from functools import lru_cache

import Stemmer  # PyStemmer: the Snowball stemmers compiled (~0.3 µs a word)

MIN_STEM_LENGTH = 4  # shorter stems join unrelated words: "none"/"non", "coder"/"code"
# Terms shorter than this match as written only: short words are where the two languages
# collide ("null"/"nulle", "page"/"pagination", "form"/"forme").
MIN_TERM_LENGTH = 5

# PyStemmer's own cache (on by default) makes a first stemming ~3x slower; stems() keeps
# its own, and learning stems each distinct word once (shortest_stems).
_FRENCH = Stemmer.Stemmer("french", 0)
_ENGLISH = Stemmer.Stemmer("english", 0)


@lru_cache(maxsize=8192)
def stems(word: str) -> tuple[str, ...]:
    """The distinct stems of an accent-free, lower-case word (empty when too short)."""
    return _kept(_FRENCH.stemWord(word), _ENGLISH.stemWord(word))


def _kept(french: str, english: str) -> tuple[str, ...]:
    if french.endswith("e") and len(french) > MIN_STEM_LENGTH + 1:
        french = french[:-1]
    found = {stem for stem in (french, english) if len(stem) >= MIN_STEM_LENGTH}
    return tuple(sorted(found))


def shortest_stem(word: str) -> str:
    """The word's shortest stem (the word itself when too short): one feature a word."""
    return min(stems(word) or (word,), key=_by_length)


def shortest_stems(words: Collection[str]) -> dict[str, str]:
    """shortest_stem of many words at once: both stemmers run over the whole list in C,
    which is what makes learning the examples cheap (~3,000 distinct words)."""
    ordered = list(words)
    french = _FRENCH.stemWords(ordered)
    english = _ENGLISH.stemWords(ordered)
    return {
        word: min(_kept(fr, en) or (word,), key=_by_length)
        for word, fr, en in zip(ordered, french, english, strict=True)
    }


def _by_length(stem: str) -> tuple[int, str]:
    return (len(stem), stem)


def term_stems(word: str) -> tuple[str, ...]:
    """The stems a skill's term is indexed under: none for a short word (matched as is)."""
    return stems(word) if len(word) >= MIN_TERM_LENGTH else ()
