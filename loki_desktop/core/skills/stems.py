"""Snowball stems of routing words, French and English, so one term covers its inflections.

"regroupées", "regrouper" and "regroupement" share the stem "regroup"; "renders" and
"rendering" share "render". A word gets both languages' stems (messages and skill files mix
French and English, and a wrong-language stem of a word rarely equals another word's stem);
a term matches a word when they share one. Stems are taken from accent-free words, like
everything the router reads, so the French stem's last "e" is dropped ("affiche" and
"affichée" both give "affich").
"""

from __future__ import annotations

from functools import lru_cache

import Stemmer  # PyStemmer: the Snowball stemmers compiled (~0.3 µs a word)

MIN_STEM_LENGTH = 4  # shorter stems join unrelated words: "none"/"non", "coder"/"code"
# Terms shorter than this match as written only: short words are where the two languages
# collide ("null"/"nulle", "page"/"pagination", "form"/"forme").
MIN_TERM_LENGTH = 5

_FRENCH = Stemmer.Stemmer("french")
_ENGLISH = Stemmer.Stemmer("english")


@lru_cache(maxsize=8192)
def stems(word: str) -> tuple[str, ...]:
    """The distinct stems of an accent-free, lower-case word (empty when too short)."""
    french = _FRENCH.stemWord(word)
    if french.endswith("e") and len(french) > MIN_STEM_LENGTH + 1:
        french = french[:-1]
    english = _ENGLISH.stemWord(word)
    found = {stem for stem in (french, english) if len(stem) >= MIN_STEM_LENGTH}
    return tuple(sorted(found))


def term_stems(word: str) -> tuple[str, ...]:
    """The stems a skill's term is indexed under: none for a short word (matched as is)."""
    return stems(word) if len(word) >= MIN_TERM_LENGTH else ()
