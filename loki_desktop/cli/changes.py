"""`loki-desktop changes`: the turns of a conversation that changed files, file by file."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

from loki_desktop.core.i18n import _
from loki_desktop.core.ports import CheckpointStore, ConversationStore, StoreUnavailable
from loki_desktop.core.services import Services

if TYPE_CHECKING:
    from loki_desktop.core.changes.counts import FileSummary


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "changes", help=_("liste les fichiers que chaque tour d'une conversation a modifiés")
    )
    parser.add_argument(
        "--session",
        help=_("la conversation (défaut : celle dont les fichiers ont changé en dernier)"),
    )
    parser.add_argument("--json", action="store_true", help=_("un objet JSON"))
    parser.set_defaults(run=run)


class BadInput(Exception):
    """Exit 2, with one sentence for the person."""


def open_stores(services: Services, stack: ExitStack) -> tuple[CheckpointStore, ConversationStore]:
    """The checkpoints and the history, closed with `stack`. Raises StoreUnavailable."""
    if services.open_checkpoints is None:
        raise StoreUnavailable(_("Les points de restauration ne sont pas disponibles ici."))
    checkpoints = services.open_checkpoints()
    stack.callback(checkpoints.close)
    history = services.open_history()
    stack.callback(history.close)
    return checkpoints, history


def pick_session(
    checkpoints: CheckpointStore, history: ConversationStore, session: str | None
) -> str | None:
    """The conversation asked for, else the one whose files changed last (None: none yet)."""
    if session is None:
        return checkpoints.latest_conversation()
    if not history.exists(session) and not checkpoints.turns(session):
        raise BadInput(_("Conversation introuvable : {id}").format(id=session))
    return session


def run(args: argparse.Namespace, services: Services) -> int:
    from loki_desktop.core.changes.counts import summarize

    with ExitStack() as stack:
        try:
            checkpoints, history = open_stores(services, stack)
            session = pick_session(checkpoints, history, args.session)
        except StoreUnavailable as exc:
            print(exc, file=sys.stderr)
            return 1
        except BadInput as exc:
            print(exc, file=sys.stderr)
            return 2
        turns = checkpoints.turns(session) if session is not None else []
        listed = [(turn, summarize(checkpoints, turn)) for turn in turns]
        if args.json:
            print(json.dumps(_as_json(session, listed), ensure_ascii=False, indent=2))
            return 0
        if not listed:
            print(_("Aucune modification de fichier enregistrée."))
            return 0
        print(_("Conversation {id}").format(id=session))
        for turn, files in listed:
            print(_("Tour {turn} — {workspace}").format(turn=turn.turn, workspace=turn.workspace))
            for summary in files:
                print("  " + file_line(summary))
    return 0


def file_line(summary: FileSummary) -> str:
    from loki_desktop.core.changes.labels import kind_label

    counts = ""
    if summary.added is not None and summary.removed is not None:
        counts = f"  +{summary.added} −{summary.removed}"
    state = ""
    if summary.restored:
        state = "  " + _("(annulé)")
    elif not summary.kept:
        state = "  " + _("(trop gros : pas de point de restauration)")
    return f"{kind_label(summary.kind):<9} {summary.path}{counts}{state}"


def _as_json(session: str | None, listed: list[Any]) -> dict[str, Any]:
    return {
        "session": session,
        "turns": [
            {
                "turn": turn.turn,
                "workspace": turn.workspace,
                "created_at": turn.created_at,
                "files": [
                    {
                        "path": f.path,
                        "kind": f.kind,
                        "added": f.added,
                        "removed": f.removed,
                        "restored": f.restored,
                        "kept": f.kept,
                    }
                    for f in files
                ],
            }
            for turn, files in listed
        ],
    }
