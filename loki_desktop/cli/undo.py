"""`loki-desktop undo`: put the files a turn changed back as they were (or again, --redo)."""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from typing import TYPE_CHECKING

from loki_desktop.core.i18n import _, ngettext
from loki_desktop.core.ports import StoreUnavailable
from loki_desktop.core.services import Services

if TYPE_CHECKING:
    from loki_desktop.core.changes.undo import Direction, UndoPlan, UndoReport

EXIT_LEFT = 3  # some files were left: they changed since the turn


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "undo",
        help=_("annule les modifications de fichiers d'un tour (le dernier par défaut)"),
        description=_(
            "Remet chaque fichier modifié par le tour dans son état d'avant le tour "
            "(les fichiers créés par le tour sont supprimés). Un fichier modifié depuis est "
            "laissé tel quel, sauf avec --force. Code de sortie : 0 tout est restauré, 3 des "
            "fichiers ont été laissés (modifiés depuis), 2 entrée invalide, 1 erreur."
        ),
    )
    parser.add_argument(
        "--session",
        help=_("la conversation (défaut : celle dont les fichiers ont changé en dernier)"),
    )
    parser.add_argument("--turn", type=int, help=_("le numéro du tour (voir `changes`)"))
    parser.add_argument(
        "--dry-run", action="store_true", help=_("dit ce qui serait fait, sans rien toucher")
    )
    parser.add_argument(
        "--force", action="store_true", help=_("écrase aussi les fichiers modifiés depuis le tour")
    )
    parser.add_argument(
        "--redo",
        action="store_true",
        help=_("rétablit les modifications d'un tour annulé (le dernier par défaut)"),
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, services: Services) -> int:
    from loki_desktop.cli.changes import BadInput, open_stores, pick_session
    from loki_desktop.core.changes.note import apply_and_note
    from loki_desktop.core.changes.undo import UndoRefused, pick_turn, plan

    direction: Direction = "redo" if args.redo else "undo"
    with ExitStack() as stack:
        try:
            checkpoints, history = open_stores(services, stack)
            session = pick_session(checkpoints, history, args.session)
            if session is None:
                raise BadInput(_("Aucune modification de fichier enregistrée."))
            turn = pick_turn(checkpoints, session, args.turn, direction)
            undo = plan(turn, direction)
        except StoreUnavailable as exc:
            print(exc, file=sys.stderr)
            return 1
        except (BadInput, UndoRefused, OSError) as exc:
            print(exc, file=sys.stderr)
            return 2
        if args.dry_run:
            _print_plan(undo, args.force)
            return 0
        try:
            report, noted = apply_and_note(
                checkpoints, history, undo, (lambda _step: True) if args.force else None
            )
        except UndoRefused as exc:
            print(exc, file=sys.stderr)
            return 1
        _print_report(undo, report, noted)
        if report.failed:
            return 1
        return EXIT_LEFT if report.left else 0


def _print_plan(undo: UndoPlan, force: bool) -> None:
    title = ngettext(
        "Tour {turn} de la conversation {id} ({n} fichier), rien n'est touché :",
        "Tour {turn} de la conversation {id} ({n} fichiers), rien n'est touché :",
        len(undo.steps),
    )
    print(title.format(turn=undo.turn, id=undo.conversation_id, n=len(undo.steps)))
    for step in undo.steps:
        if not step.kept:
            line = _("impossible  {path} : trop gros, pas de point de restauration")
        elif step.changed_since and not force:
            line = _("à laisser   {path} : modifié depuis le tour")
        elif step.target is None:
            line = _("à supprimer {path}")
        else:
            line = _("à restaurer {path}")
        print("  " + line.format(path=step.path))


def _print_report(undo: UndoPlan, report: UndoReport, noted: bool) -> None:
    if undo.direction == "undo":
        title = _("Tour {turn} de la conversation {id} annulé :")
    else:
        title = _("Tour {turn} de la conversation {id} rétabli :")
    print(title.format(turn=undo.turn, id=undo.conversation_id))
    for step in report.restored:
        line = _("supprimé    {path}") if step.target is None else _("restauré    {path}")
        print("  " + line.format(path=step.path))
    for step in report.left:
        print("  " + _("laissé      {path} : modifié depuis le tour").format(path=step.path))
    for step, why in report.failed:
        print("  " + _("échec       {path} : {why}").format(path=step.path, why=why))
    if report.left:
        print(
            _("Fichiers laissés tels quels : relancez avec --force pour les écraser."),
            file=sys.stderr,
        )
    if report.restored and not noted:
        print(_("(la conversation n'a pas pu en garder la trace)"), file=sys.stderr)
    if undo.direction == "undo" and report.restored:
        print(
            _("Pour rétablir : loki-desktop undo --redo --session {id} --turn {turn}").format(
                id=undo.conversation_id, turn=undo.turn
            )
        )
