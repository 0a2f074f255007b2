"""Text normalisation for routing: accent- and case-free words and file extensions."""

from __future__ import annotations

import re
import unicodedata

# Routing reads at most this much of a message: the head (the request) and the tail
# (where a pasted traceback puts the error name). Keeps the cost bounded on huge pastes.
HEAD_CHARS = 3000
TAIL_CHARS = 1000

# A word right after a dot is a file extension ("config.json"): it counts once, as an
# extension, never also as the word "json".
_WORD = re.compile(r"(?<![.a-z0-9_])[a-z0-9_]+")
# ".csv" in "ventes.csv", "data/x.CSV" or "un fichier .csv"; a dot followed by a space is
# the end of a sentence and gives nothing.
_EXTENSION = re.compile(r"\.([a-z0-9]{1,10})\b")
# "ventes.csv", "ab_test.csv": an extension right after a file's name, not a bare ".csv"
_NAMED = re.compile(r"[a-z0-9_-]\.([a-z0-9]{1,10})\b")
_COMBINING = re.compile(r"[\u0300-\u036f]")
# Letters NFKD does not decompose but French writes.
_LIGATURES = str.maketrans({"œ": "oe", "æ": "ae", "ø": "o", "ł": "l", "đ": "d"})


def normalize(text: str) -> str:
    """Lower case without accents: "Élimine l'ŒUVRE" -> "elimine l'oeuvre"."""
    if text.isascii():
        return text.lower()
    folded = unicodedata.normalize("NFKD", text.casefold()).translate(_LIGATURES)
    return _COMBINING.sub("", folded)


def bounded(text: str) -> str:
    """The part of a message routing looks at."""
    if len(text) <= HEAD_CHARS + TAIL_CHARS:
        return text
    return text[:HEAD_CHARS] + "\n" + text[-TAIL_CHARS:]


def words(normalized: str) -> list[str]:
    """Whole words of normalised text; apostrophes, hyphens and dots separate words.

    A file extension is not a word: "ventes.csv" gives "ventes" (and the extension ".csv").
    """
    return _WORD.findall(normalized)


def extensions(normalized: str) -> set[str]:
    """File extensions mentioned in normalised text, with their dot: {".csv", ".html"}."""
    return {"." + match for match in _EXTENSION.findall(normalized)}


def named_extensions(normalized: str) -> set[str]:
    """The extensions of the files a message names: {".csv"} for "ventes.csv", not for
    "un fichier .csv"."""
    return {"." + match for match in _NAMED.findall(normalized)}
