"""The plan step: for a request of several actions, a numbered plan (at most 8 steps) first.

`needs_plan` is the rule that decides, measured on a labelled set of messages
(tests/corpus/plan/labels.tsv, scored by tests/core/test_plan.py and docs/intelligence.md):
a simple message ("bonjour", a question, one action) gets no plan.
"""

from __future__ import annotations

import re
import unicodedata

MAX_STEPS = 8

# model-facing
PLAN_SYSTEM = """\
Before doing a task, you write its plan. Reply with a numbered list of at most 8 short \
steps (one line each, in the language of the request) that together do what the user \
asks: the files to read, the changes to make, the checks to run. Write only the list."""

PLAN_GUIDE = (
    "Plan for this request (follow it step by step; adapt it if a step turns out wrong, "
    "and do not repeat it back):\n"
)

# Verbs that ask for an action, without accents, as the message writes them (imperative,
# infinitive or "can you ..." forms; whole words).
_ACTION_WORDS = """
    cree creer crees creez ecris ecrire ecrivez ajoute ajouter ajoutez modifie modifier
    modifiez corrige corriger corrigez lance lancer lancez teste tester testez deploie
    deployer installe installer configure configurer genere generer mets mettre renomme
    renommer supprime supprimer efface effacer refactorise refactoriser verifie verifier
    verifiez lis lire compare comparer analyse analyser documente documenter construis
    construire migre migrer convertis convertir implemente implementer remplace remplacer
    deplace deplacer extrais extraire resume resumer redige rediger traduis traduire
    prepare preparer publie publier envoie envoyer calcule calculer trace tracer range
    ranger nettoie nettoyer fusionne fusionner decoupe decouper commite committer pousse
    create write add update fix run test deploy install configure generate rename remove
    delete refactor check read compare analyse analyze document build migrate convert
    implement replace move extract summarise summarize draft translate prepare publish
    send compute plot clean merge split commit push setup save list review identify
    download upload log identifie propose proposer telecharge telecharger sauvegarde
    enregistre enregistrer liste lister
"""
_ACTIONS = frozenset(_ACTION_WORDS.split())
_SEQUENCE = re.compile(
    r"\b(puis|ensuite|apres|enfin|et enfin|avant de|d abord|then|after that|afterwards|"
    r"finally|first|before|and then|step|etape|etapes|steps)\b"
)
_LIST_ITEM = re.compile(r"(?m)^\s*(?:\d+[.)]|[-*•])\s+\S")
_NUMBERED = re.compile(r"^\s*(?:\d+\s*[.):-]|[-*•])\s*(.+?)\s*$")


def _words(text: str) -> list[str]:
    plain = unicodedata.normalize("NFKD", text.lower())
    plain = "".join(c for c in plain if not unicodedata.combining(c))
    return re.findall(r"[a-z]+", plain.replace("'", " ").replace("-", " "))


def needs_plan(text: str) -> bool:
    """True for a request that needs several actions (two or more action verbs with a
    sequence word or a list, or three action verbs); False for greetings and questions."""
    if len(_LIST_ITEM.findall(text)) >= 2:
        return True
    words = _words(text)
    if len(words) < 6:
        return False
    # "downloads, cleans and plots": a third person counts as the verb
    actions = sum(1 for word in words if word in _ACTIONS or word.removesuffix("s") in _ACTIONS)
    joined = " ".join(words)
    sequenced = bool(_SEQUENCE.search(joined)) or "," in text or " et " in f" {joined} "
    sequenced = sequenced or " and " in f" {joined} "
    return actions >= 3 or (actions >= 2 and sequenced)


def parse_plan(text: str) -> tuple[str, ...]:
    """The steps of a numbered (or bulleted) list, at most MAX_STEPS; () when there is none."""
    steps = []
    for line in text.splitlines():
        match = _NUMBERED.match(line)
        if match and match.group(1).strip("*_ "):
            steps.append(match.group(1).strip("*_ "))
    return tuple(steps[:MAX_STEPS])


def plan_guide(steps: tuple[str, ...]) -> str:
    """The system text that gives the turn its plan."""
    return PLAN_GUIDE + "\n".join(f"{n}. {step}" for n, step in enumerate(steps, 1))
