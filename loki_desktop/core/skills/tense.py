"""Whether an action word in a message is asked for, or told: a past tense, someone else.

A pair's left side is an action ("corrige … bug", "write … report"); it makes no pair when
the message tells it was done ("j'ai trouvé l'erreur", "the bug got fixed") or that someone
else does it ("ma soeur rédige des rapports", "my brother builds websites").
"""

from __future__ import annotations

# An action word right after one of these is a past tense ("j'ai trouvé l'erreur", "nous avons
# fait un site", "the bug got fixed", "we created a site"): something done, told, not asked
# for, so it makes no action/object pair. English needs the -ed too, and a subject or an
# auxiliary before it: "the function returned None instead of a list" still reports a bug.
PAST_AUXILIARIES = frozenset({"ai", "as", "avons", "avez", "ont"})
ENGLISH_PAST_CUES = frozenset(
    {"i", "we", "they", "he", "she", "got", "was", "were", "been", "have", "has", "had"}
)
# ...unless the "action" is a need: "j'ai besoin d'un site" asks for one.
NOT_PARTICIPLES = frozenset({"besoin", "envie"})
# "a" is both the auxiliary ("qui a écrit", "il a corrigé") and the preposition "à" once
# accents are gone ("aide-moi à écrire"): after it, only a participle's ending is a past.
# Infinitives end in -er, -ir, -re. English "a" is an article ("into a separate class"), so
# this holds only in a message with a French word that English never writes.
PARTICIPLE_ENDINGS = ("e", "i", "it", "is", "u", "ert")
FRENCH_WORDS = frozenset(
    {"le", "la", "les", "du", "des", "un", "une", "de", "est", "je", "il", "elle", "qui"}
    | {"mon", "ma", "mes", "sa", "ses", "ce", "cette", "pour", "avec", "dans", "et", "pas"}
)
# Verbs in -ed that are no past: "I need a letter", "we embed a map".
NOT_ENGLISH_PASTS = ("eed", "embed")
# An action told of someone else is no request either: "il rédige des rapports", "my brother
# builds websites", "ma soeur rédige des rapports" (the French present of -er verbs has the
# imperative's form, so only the subject before it tells them apart).
# "qui" opens a relative clause ("une page qui affiche l'heure", "qu'est-ce qui rend un site
# accessible"): its verb describes; the request, if any, is the main verb.
THIRD_PERSONS = frozenset({"il", "elle", "on", "ils", "elles", "he", "she", "qui"})
PEOPLE = frozenset(
    {"frere", "soeur", "fils", "fille", "pere", "mere", "papa", "maman", "femme", "mari"}
    | {"copain", "copine", "ami", "amie", "collegue", "patron", "patronne", "chef", "voisin"}
    | {"voisine", "cousin", "cousine", "neveu", "niece", "oncle", "tante", "prof", "enfant"}
    | {"brother", "sister", "son", "daughter", "father", "mother", "dad", "mom", "mum"}
    | {"wife", "husband", "boyfriend", "girlfriend", "friend", "colleague", "coworker"}
    | {"boss", "neighbour", "neighbor", "nephew", "uncle", "aunt", "teacher", "kid", "child"}
    | {"equipe", "team", "entreprise", "company", "developpeur", "developer", "dev", "devs"}
)
# "What makes a website accessible?", "a page that adds items": an English verb in -s after
# these is a statement or a relative clause, not an imperative.
ENGLISH_SUBJECTS = frozenset({"what", "which", "that", "it", "who", "this"})


def not_asked(tokens: list[str], position: int) -> bool:
    """True when the action word at `position` is told, not asked for."""
    return _past_tense(tokens, position) or _told(tokens, position)


def _told(tokens: list[str], position: int) -> bool:
    """True when the word at `position` follows a third-person subject: a pronoun or a
    person ("my sister writes reports", "mon frère crée des sites")."""
    if position == 0:
        return False
    word, before = tokens[position], tokens[position - 1]
    if before in THIRD_PERSONS or before in PEOPLE:
        return True
    return before in ENGLISH_SUBJECTS and word.endswith("s") and not word.endswith("ss")


def _past_tense(tokens: list[str], position: int) -> bool:
    """True when the word at `position` is a past participle: after a French auxiliary
    (a passé composé), or an English word in -ed after a subject or an auxiliary."""
    if position == 0:
        return False
    word, before = tokens[position], tokens[position - 1]
    if word.endswith("ed") and (before in ENGLISH_PAST_CUES or before in PEOPLE):
        return not word.endswith(NOT_ENGLISH_PASTS)
    if before == "a":
        if FRENCH_WORDS.isdisjoint(tokens):
            return False
        return word.endswith(PARTICIPLE_ENDINGS) and not word.endswith("re")
    return before in PAST_AUXILIARIES and word not in NOT_PARTICIPLES
