"""Whether a request needs a tool: writing a file, changing one, running a check or a command.

A small model often answers such a request with a paragraph that *describes* the file it
would write; when tools were offered and none was used, the turn says so (core.agent). The
test is lexical and cautious: an action verb (French or English) together with something a
tool acts on (a file name with an extension, "fichier", "script", "tests"...). A question
about code ("que fait ce script ?") has no action verb and needs no tool.
"""

from __future__ import annotations

import re
import unicodedata

_WRITE = re.compile(
    r"\b(ecri[st]|ecrire|ecrivez|cree[rz]?|generer?|genere[zs]?|enregistre[rz]?|"
    r"sauvegarde[rz]?|modifie[rz]?|corrige[rz]?|ajoute[rz]?|remplace[rz]?|renomme[rz]?|"
    r"supprime[rz]?|write|create|save|generate|modify|fix|edit|add|update|rename|delete)\b"
)
_RUN = re.compile(r"\b(lance[rz]?|execute[rz]?|teste[rz]?|verifie[rz]?|run|execute|test|check)\b")
_FILE_NAME = re.compile(
    r"\b[\w/-]+\.(py|js|mjs|ts|tsx|jsx|html?|css|json|md|txt|csv|tsv|toml|ya?ml|ini|cfg|sh|"
    r"rs|go|java|kt|c|h|cpp|hpp|rb|php|sql|xml|svg)\b"
)
# what a tool acts on; not "code" or "fonction": "corrige ce code : …" can be answered inline
_TARGET = re.compile(r"\b(fichiers?|files?|scripts?|pages? web|web pages?|dossiers?|folders?)\b")
_RUNNABLE = re.compile(r"\b(tests?|commandes?|commands?|scripts?|verifications?|checks?)\b")


def needs_tool(request: str) -> bool:
    """True when `request` asks for an action only a tool can do (write, change, run)."""
    text = _plain(request)
    if _WRITE.search(text) and (_FILE_NAME.search(text) or _TARGET.search(text)):
        return True
    return bool(_RUN.search(text) and _RUNNABLE.search(text))


def _plain(text: str) -> str:
    """Lower case without accents (the patterns are written without them)."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))
