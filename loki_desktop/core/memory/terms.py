"""The words of a memory or a question as the word index keeps them, and its exact tokens.

    terms("Mon serveur tourne sur Debian 12, port 8443")
        -> serveur, tourn, debian, 12, port, 8443 ...   words, accent-free, and their stems
    exact_tokens("la plaque AB-123-CD, l'IP 10.0.0.7") -> {"ab123cd", "10007"}

An exact token (a plate number, an IP, a host name, an invoice prefix) is a word holding a
digit or joined by `.`, `-`, `_`, `/`, `:`: its parts are indexed one by one AND joined, so
the question "AB123CD" or "ab-123-cd" finds it whole, which a vector blurs.
"""

from __future__ import annotations

import re
import unicodedata

from loki_desktop.core.skills.stems import stems

# A word, or a run of words joined by one separator each ("srv-prod-03.lan", "10.0.0.7").
_TOKEN = re.compile(r"[a-z0-9]+(?:[._:/-][a-z0-9]+)*")
_PART = re.compile(r"[a-z0-9]+")
# Words that say nothing of what a memory is about (French and English, accent-free).
_STOPWORDS = """
    a au aux avec ce ces cet cette dans de des du elle en est et il ils je la le les leur
    lui ma mais me mes moi mon ne nos notre nous on ou par pas pour qu que qui sa se ses si
    son sur ta te tes toi ton tu un une vos votre vous y c d j l m n s t quel quelle quels
    quelles quoi est-ce ai as avons avez ont suis es sommes etes sont etait
    an and are as at be but by do does did for from had has have he her his i if in into is
    it its me my no not of on or our she so that the their them they this to was we were
    what when where which who why will with you your
"""
STOPWORDS = frozenset(_STOPWORDS.split())


def fold(text: str) -> str:
    """Lower case, accents dropped (« Mémoire » -> "memoire")."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def terms(text: str) -> list[str]:
    """Every term of `text` the index keeps or a question looks for, in order, once each."""
    found: dict[str, None] = {}
    for token in _TOKEN.findall(fold(text)):
        parts = _PART.findall(token)
        if len(parts) > 1 or any(ch.isdigit() for ch in token):
            found["".join(parts)] = None
        for part in parts:
            if part in STOPWORDS:
                continue
            found[part] = None
            for stem in stems(part):
                found[stem] = None
    return list(found)


def exact_tokens(text: str) -> set[str]:
    """The joined form of each exact token of `text` (see the module's docstring)."""
    tokens: set[str] = set()
    for token in _TOKEN.findall(fold(text)):
        parts = _PART.findall(token)
        joined = "".join(parts)
        if len(joined) >= 3 and (len(parts) > 1 or any(ch.isdigit() for ch in token)):
            tokens.add(joined)
    return tokens
