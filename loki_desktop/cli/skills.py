"""`loki-desktop skills`: which skill the router picks for a message, and why; or the list."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from loki_desktop.core.services import Services

if TYPE_CHECKING:
    from loki_desktop.core.skills.model import Skill
    from loki_desktop.core.skills.router import Routing

KIND_LABELS = {
    "name": "nom",
    "strong": "fort",
    "pair": "paire",
    "extension": "extension",
    "weak": "faible",
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "skills",
        help="affiche la méthode choisie pour un message (ou « none »)",
        description="Affiche le nom de la méthode que Loki injecterait pour ce message, "
        "ou « none ». Lit le message sur l'entrée standard quand MESSAGE vaut « - ».",
    )
    parser.add_argument("message", nargs="?", metavar="MESSAGE", help="le message à router")
    parser.add_argument(
        "--explain", action="store_true", help="affiche aussi les mots qui ont compté"
    )
    parser.add_argument(
        "--list", action="store_true", help="liste les méthodes : nom, titre, fichier"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, services: Services) -> int:
    from loki_desktop.core.skills.loader import load_examples, load_skills
    from loki_desktop.core.skills.router import Router

    if args.message is None and not args.list:
        print("Donnez un MESSAGE à router, ou --list.", file=sys.stderr)
        return 2
    catalogue = load_skills(services.user_skills_dir)
    for problem in catalogue.problems:
        print(f"note : {problem}", file=sys.stderr)
    if args.list:
        _print_list(catalogue.skills)
        if args.message is None:
            return 0
    if not services.settings.load().skills_enabled:
        print(
            "note : les méthodes sont désactivées dans les réglages ; "
            "« ask » n'en injectera aucune.",
            file=sys.stderr,
        )
    message = sys.stdin.read() if args.message == "-" else args.message
    # the same router as a turn's: the rules, then the examples when the rules find nothing
    routing = Router(catalogue.skills, load_examples()).route(message)
    print(routing.skill.name if routing.skill else "none")
    if args.explain:
        _print_explanation(routing)
    return 0


def _print_list(skills: tuple[Skill, ...]) -> None:
    if not skills:
        print("Aucune méthode.")
        return
    name_width = max(len(skill.name) for skill in skills)
    title_width = max(len(skill.title) for skill in skills)
    for skill in skills:
        origin = "intégrée" if skill.builtin else "utilisateur"
        print(
            f"{skill.name:<{name_width}}  {skill.title:<{title_width}}  {origin} : {skill.source}"
        )


def _print_explanation(routing: Routing) -> None:
    if not routing.scores:
        print("  aucun mot ne correspond à une méthode")
    width = max((len(score.skill.name) for score in routing.scores), default=0)
    for score in routing.scores:
        hits = ", ".join(
            f"« {hit.words} » {KIND_LABELS[hit.kind]} +{hit.points}" for hit in score.hits
        )
        unit = "point" if score.points < 2 else "points"
        print(f"  {score.skill.name:<{width}}  {score.points} {unit} : {hits}")
    if routing.damped_by:
        print(
            f"  question de définition (« {routing.damped_by} ») : "
            f"-{routing.penalty} points pour chaque méthode"
        )
    print(f"  seuil : {routing.threshold} points")
    if routing.resemblance is not None and routing.skill is not None:
        stems = ", ".join(f"« {stem} »" for stem in routing.resemblance.stems)
        print(
            f"  aucune règle n'atteint le seuil ; le message ressemble aux exemples de "
            f"{routing.skill.name} (mots : {stems})"
        )
