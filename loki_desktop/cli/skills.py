"""`loki-desktop skills`: which skill the router picks for a message, and why; or the list."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from loki_desktop.core.i18n import N_, _, ngettext
from loki_desktop.core.services import Services

if TYPE_CHECKING:
    from loki_desktop.core.skills.model import Skill
    from loki_desktop.core.skills.router import Routing
    from loki_desktop.core.skills.stack import Verdict

KIND_LABELS = {
    "name": N_("nom"),
    "strong": N_("fort"),
    "pair": N_("paire"),
    "extension": N_("extension"),
    "weak": N_("faible"),
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "skills",
        help=_("affiche la méthode choisie pour un message (ou « none »)"),
        description=_(
            "Affiche le nom de la méthode que Loki injecterait pour ce message, "
            "ou « none ». Lit le message sur l'entrée standard quand MESSAGE vaut « - »."
        ),
    )
    parser.add_argument("message", nargs="?", metavar="MESSAGE", help=_("le message à router"))
    parser.add_argument(
        "--explain", action="store_true", help=_("affiche aussi les mots qui ont compté")
    )
    parser.add_argument(
        "--list", action="store_true", help=_("liste les méthodes : nom, titre, fichier")
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, services: Services) -> int:
    from loki_desktop.core.skills.loader import load_examples, load_skills
    from loki_desktop.core.skills.router import Router

    if args.message is None and not args.list:
        print(_("Donnez un MESSAGE à router, ou --list."), file=sys.stderr)
        return 2
    catalogue = load_skills(services.user_skills_dir)
    for problem in catalogue.problems:
        print(_("note : {text}").format(text=problem), file=sys.stderr)
    if args.list:
        _print_list(catalogue.skills)
        if args.message is None:
            return 0
    if not services.settings.load().skills_enabled:
        print(
            _(
                "note : les méthodes sont désactivées dans les réglages ; "
                "« ask » n'en injectera aucune."
            ),
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
        print(_("Aucune méthode."))
        return
    name_width = max(len(skill.name) for skill in skills)
    title_width = max(len(skill.title) for skill in skills)
    for skill in skills:
        origin = _("intégrée") if skill.builtin else _("utilisateur")
        print(
            f"{skill.name:<{name_width}}  {skill.title:<{title_width}}  {origin} : {skill.source}"
        )


def _print_explanation(routing: Routing) -> None:
    if not routing.scores:
        print("  " + _("aucun mot ne correspond à une méthode"))
    width = max((len(score.skill.name) for score in routing.scores), default=0)
    for score in routing.scores:
        hits = ", ".join(
            f"« {hit.words} » {_(KIND_LABELS[hit.kind])} +{hit.points}" for hit in score.hits
        )
        points = ngettext("{n} point : {hits}", "{n} points : {hits}", score.points)
        print(f"  {score.skill.name:<{width}}  " + points.format(n=score.points, hits=hits))
    if routing.damped_by:
        damped = _("demande une réponse, pas une méthode (« {words} ») : -{n} points par méthode")
        print("  " + damped.format(words=routing.damped_by, n=routing.penalty))
    if routing.verdict is None:
        print("  " + _("seuil : {n} points").format(n=routing.threshold))
    else:
        _print_totals(routing.verdict)
    if routing.resemblance is not None and routing.skill is not None:
        stems = ", ".join(f"« {stem} »" for stem in routing.resemblance.stems)
        alike = _("les exemples ont fait pencher la décision vers {skill} (mots : {stems})")
        print("  " + alike.format(skill=routing.skill.name, stems=stems))


def _print_totals(verdict: Verdict) -> None:
    """The stacked decision: rule points, the examples' log-odds and the total per skill."""
    print("  " + _("décision (règles + exemples) :"))
    width = max((len(weighed.skill.name) for weighed in verdict.skills), default=4)
    for weighed in verdict.skills:
        if weighed.odds is None or weighed.total is None:
            line = _("règles {points}, pas d'exemples : les règles décident")
        else:
            line = _("règles {points}, exemples {odds:+.1f}, total {total:.2f}")
        text = line.format(points=weighed.points, odds=weighed.odds, total=weighed.total)
        print(f"    {weighed.skill.name:<{width}}  {text}")
    none = _("total {total:.2f}").format(total=verdict.none)
    print(f"    {'none':<{width}}  {none}")
