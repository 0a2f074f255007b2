"""Cues that a message wants an answer, not a method: who, what year, where to report, a device.

"Qui a écrit le rapport Brundtland ?" names a report and a writing verb, and "J'ai trouvé un
bug dans un jeu, à qui le signaler ?" names a bug, yet neither asks Loki to write or to debug
anything. The router damps such messages like definitional questions (router.DEFINITIONAL):
every score loses a few points and the example-based opinion is not asked. The cues are
kinds of question, not topics, so they carry to phrasings nobody wrote down.
"""

from __future__ import annotations

import re

# A question about a person, at the start of a sentence ("la fonction qui plante" is a
# relative clause), not a call for help ("Qui peut m'aider à corriger ce bug ?") and not
# about the user's own people ("Who are our top 20 customers?" asks their data).
_WHO_FIRST = re.compile(
    r"(?:^|[.!?\n]\s*)(qui|who|whom|whose)\b"
    r"(?!\s*(?:peut|peux|pourrait|pourrais|saurait|can|could|would|will)\b)"
    r"(?!\s*(?:are|is|were|was|sont|est|etaient|etait)\s+(?:our|my|nos|mes|notre|mon|ma)\b)"
)
# A device's own trouble, told from the start of the message ("Mon téléphone plante depuis la
# mise à jour", "My laptop is slow"): the debugging method is for code the user can read.
# One word may come between ("the hotel wifi", "ma nouvelle imprimante"), unless it is the
# user's own program ("mon appli téléphone").
_DEVICE_FIRST = re.compile(
    r"^(?:mon|ma|my|le|la|the)\s+"
    r"(?:(?!appli|app|application|site|logiciel|programme|program|script|code)[a-z]+\s+)?"
    r"(?:telephone|portable|smartphone|iphone|ordinateur|ordi|pc|laptop|computer|phone|wifi"
    r"|voiture|car|imprimante|printer|box|tele|tv|tablette|tablet|montre|watch)\b"
)
# Operating a file or a program, at the start: the agent's tools do it, no method is needed
# ("Ouvre le fichier ventes.csv", "Run the backup script"). A request that goes on ("ouvre
# ventes.csv et calcule la moyenne par mois") still scores past the damping.
# Moving is left out: "Move the business logic out of the controller" is refactoring.
_COMMANDS = frozenset(
    {"ouvre", "open", "lance", "run", "execute", "envoie", "send", "copie", "copy", "imprime"}
)
# Phrases anywhere in a message, matched word by word like router.DEFINITIONAL.
ANSWER_PHRASES = (
    # to whom: a person or a place to turn to
    "a qui",
    "aupres de qui",
    "to whom",
    "who should i",
    "who do i",
    "who can i",
    # reporting a problem to its owner rather than asking to fix it
    "comment signaler",
    "ou signaler",
    "comment le signaler",
    "comment la signaler",
    "le signaler a",
    "la signaler a",
    "how do i report",
    "how to report",
    "how can i report",
    "where do i report",
    "where to report",
    "where can i report",
    "report it to",
    "report this to",
    # an opinion asked for
    "une bonne idee",
    "a good idea",
    "vaut le coup",
    "worth it",
    # a translation
    "comment on dit",
    "comment dit on",
    "comment se dit",
    "how do you say",
    "how to say",
    "how do i say",
    # a product recommended
    "le meilleur logiciel",
    "le meilleur outil",
    "la meilleure appli",
    "le meilleur langage",
    "le meilleur framework",
    "le meilleur livre",
    "la meilleure formation",
    "best tool",
    "best software",
    "best app",
    "best language",
    "best framework",
    "best book",
    "best course",
    # a date in history
    "en quelle annee",
    "what year",
    "which year",
    "in what year",
    "quand est ne",
    "quand est nee",
    "quand a eu lieu",
)


def asks_who(normalized: str) -> str | None:
    """The question word when a sentence of this normalised message asks who, or None."""
    if "qui" not in normalized and "who" not in normalized:  # the common case, in C
        return None
    found = _WHO_FIRST.search(normalized)
    return found.group(1) if found else None


def command_first(tokens: list[str]) -> str | None:
    """The command a message starts with when it only operates on files or programs
    ("Ouvre le fichier ventes.csv", "Run the backup script"), or None."""
    return tokens[0] if tokens and tokens[0] in _COMMANDS else None


def device_trouble(normalized: str) -> str | None:
    """The device a normalised message starts with ("mon telephone"), or None."""
    found = _DEVICE_FIRST.match(normalized.lstrip())
    return found.group(0) if found else None
