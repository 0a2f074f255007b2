"""A small detector of French words in English text and English words in French text.

Word lists, not a language model: the words a person reads most in Loki's interface
(articles, prepositions, the nouns and verbs of its buttons), so a string added later
without its translation is caught. Placeholders, paths, addresses, code, identifiers and
quoted names are left out: they are not prose.
"""

from __future__ import annotations

import re

FRENCH_WORDS = frozenset(
    [
        "le",
        "la",
        "les",
        "des",
        "du",
        "une",
        "un",
        "est",
        "pas",
        "pour",
        "avec",
        "dans",
        "sur",
        "aucun",
        "aucune",
        "fichier",
        "fichiers",
        "dossier",
        "modèle",
        "modèles",
        "serveur",
        "serveurs",
        "réglages",
        "nouvelle",
        "envoyer",
        "erreur",
        "vérification",
        "outils",
        "outil",
        "méthode",
        "méthodes",
        "et",
        "ou",
        "à",
        "au",
        "aux",
        "ce",
        "cette",
        "qui",
        "que",
        "vos",
        "votre",
        "sans",
        "réessayer",
        "annuler",
        "fermer",
        "copier",
        "joindre",
        "télécharger",
        "supprimer",
        "enregistrer",
        "ajouter",
        "retirer",
        "choisir",
        "arrêter",
        "autoriser",
        "refuser",
        "langue",
        "apparence",
        "général",
        "clair",
        "sombre",
        "système",
        "connecté",
        "connexion",
        "inactif",
        "écrivez",
        "bonjour",
        "réflexion",
        "problèmes",
        "résultat",
        "en",
        "de",
        "écrit",
        "octets",
        "lignes",
        "regarder",
        "dans",
        "répertoire",
        "choisir",
    ]
)
ENGLISH_WORDS = frozenset(
    [
        "the",
        "and",
        "of",
        "to",
        "is",
        "are",
        "not",
        "for",
        "with",
        "from",
        "file",
        "files",
        "folder",
        "model",
        "models",
        "settings",
        "new",
        "send",
        "error",
        "check",
        "checks",
        "tools",
        "tool",
        "open",
        "close",
        "copy",
        "download",
        "delete",
        "cancel",
        "this",
        "that",
        "your",
        "you",
        "none",
        "yes",
        "stop",
        "retry",
        "save",
        "add",
        "remove",
        "search",
        "working",
        "ask",
        "allow",
        "deny",
        "running",
        "failed",
        "done",
        "problems",
        "problem",
        "thinking",
        "quick",
        "language",
        "appearance",
        "light",
        "dark",
        "system",
        "server",
        "servers",
        "choose",
        "refresh",
        "keep",
        "forget",
        "rename",
        "result",
        "connected",
        "connecting",
        "idle",
        "write",
        "anything",
        "hello",
        "exist",
        "bytes",
        "created",
        "exit",
        "look",
        "directory",
    ]
)
# each language is named in itself in the Langue menu, on purpose
OWN_NAMES = {"Français", "English"}
ACCENTED = re.compile(r"[éèêàùçôîœÉÈÊÀÇ]")
WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
# what is not prose: placeholders, paths, addresses, code
NOT_PROSE = re.compile(
    r"\{[^}]*\}|https?://\S+|\S*[/\\_]\S*|\S+\.\w{2,4}\b|`[^`]*`|<[^>]+>|«[^»]*»|\"[^\"]*\"|\w+(?:-\w+)+"
)


def wrong_words(text: str, language: str) -> list[str]:
    """The words of `text` that belong to the other language."""
    for name in OWN_NAMES:
        text = text.replace(name, "")
    text = NOT_PROSE.sub(" ", text)
    words = [word.lower() for word in WORD.findall(text)]
    if language == "en":
        return [w for w in words if w in FRENCH_WORDS or ACCENTED.search(w)]
    return [w for w in words if w in ENGLISH_WORDS]
