"""The `intelligence` suite: 8 memory tasks and 8 workspace tasks, read from a data file.

Memory tasks give a fact in a first conversation and ask for it in a new one (only a harness
that remembers across conversations answers). Workspace tasks hide a fact in one file of a
300-file folder that the request does not name. The tasks are in intelligence/tasks.toml;
this module only builds them (and the folder's 299 other files, the same on every run).
"""

from __future__ import annotations

import random
import tomllib
from importlib import resources
from typing import Any

from loki_desktop.core.evaluation.tasks import AnswerContains, EvalTask, Reference, call

WORKSPACE_FILES = 300
_FOLDERS = (
    "maison/travaux",
    "projets/divers",
    "administratif/impots",
    "sante/suivi",
    "voyages",
    "lectures",
    "travail/reunions",
    "sport",
    "cuisine/plats",
    "photos/albums",
)
# Filler that never holds a task's search word (tests/core/evaluation holds that).
_SENTENCES = (
    "Penser à racheter des ampoules pour le couloir.",
    "Le train de 8 h 12 est souvent en retard le lundi.",
    "Idée : ranger les câbles dans la boîte bleue.",
    "Relire le chapitre trois avant jeudi.",
    "La peinture du salon demande deux couches.",
    "Noter les dépenses du mois dans le tableur.",
    "Appeler le garage pour le contrôle technique.",
    "Séance de course : 5 km en 28 minutes.",
    "Le marché du samedi ouvre à 7 heures.",
    "Acheter du terreau pour les tomates.",
    "Meeting notes: the budget review moved to next week.",
    "Reading list: two essays on urban gardens.",
    "Trier les photos de l'été par album.",
    "Le voisin prête sa perceuse si besoin.",
    "Vérifier la date de validité du passeport.",
    "Préparer la liste des courses pour dimanche.",
    "Training plan: rest on Wednesday, long run on Sunday.",
    "Le livre emprunté est à rendre avant le 20.",
    "Réserver une table pour huit personnes.",
    "Arroser les plantes du balcon tous les deux jours.",
)


def intelligence_suite() -> list[EvalTask]:
    data = _data()
    memory = [_memory_task(entry) for entry in data.get("memory", [])]
    workspace = [_workspace_task(entry) for entry in data.get("workspace", [])]
    return memory + workspace


def _data() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("intelligence", "tasks.toml").read_text("utf-8")
    return tomllib.loads(text)


def _memory_task(entry: dict[str, Any]) -> EvalTask:
    return EvalTask(
        str(entry["id"]),
        "memory",
        str(entry["prompt"]),
        (AnswerContains(tuple(entry["expect"])),),
        Reference((), str(entry["answer"])),
        earlier=(str(entry["earlier"]),),
    )


def _workspace_task(entry: dict[str, Any]) -> EvalTask:
    path = str(entry["file"])
    rounds = ((call("grep_search", pattern=str(entry["search"])),), (call("read_file", path=path),))
    return EvalTask(
        str(entry["id"]),
        "workspace",
        str(entry["prompt"]),
        (AnswerContains(tuple(entry["expect"])),),
        Reference(rounds, str(entry["answer"])),
        files=haystack(str(entry["id"]), path, str(entry["fact"])),
    )


def haystack(seed: str, path: str, fact: str) -> dict[str, str]:
    """WORKSPACE_FILES files: the one at `path` holds `fact` among filler, the others filler
    only (the same for a given `seed` on every run)."""
    rng = random.Random(seed)
    files: dict[str, str] = {}
    while len(files) < WORKSPACE_FILES - 1:
        name = f"{rng.choice(_FOLDERS)}/note-{len(files):03d}.md"
        files[name] = _filler(rng)
    lines = _filler(rng).splitlines()
    lines.insert(rng.randrange(1, len(lines) + 1), fact)
    files[path] = "\n".join(lines) + "\n"
    return files


def _filler(rng: random.Random) -> str:
    count = rng.randint(3, 7)
    return "# Notes\n" + "\n".join(rng.choice(_SENTENCES) for _ in range(count)) + "\n"
