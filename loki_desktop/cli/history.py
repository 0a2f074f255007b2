"""`loki-desktop history`: list, show, search, export, import and delete conversations."""

from __future__ import annotations

import argparse
import json
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from loki_desktop.core.branches import BranchBusy, switch_branch
from loki_desktop.core.i18n import _, ngettext
from loki_desktop.core.ports import (
    ImportRefused,
    NotInConversation,
    StoreUnavailable,
    UnknownConversation,
)
from loki_desktop.core.services import Services

if TYPE_CHECKING:
    from loki_desktop.core.export.formats import Format
    from loki_desktop.core.messages import ChatMessage, ConversationInfo
    from loki_desktop.core.ports import ConversationStore

# An export bigger than this is refused before it is read (a 1,000-turn conversation with
# images is a few MB; this keeps a wrong file from filling the memory).
MAX_IMPORT_BYTES = 256 * 1024 * 1024


class BadInput(Exception):
    """Exit 2, with one sentence for the person."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "history", help=_("liste, montre, cherche, exporte, importe ou supprime des conversations")
    )
    verbs = parser.add_subparsers(dest="verb", metavar=_("ACTION"), required=True)
    listing = verbs.add_parser("list", help=_("les conversations, épinglées d'abord"))
    listing.add_argument("--json", action="store_true", help=_("un objet JSON par ligne"))
    listing.add_argument(
        "--workspace", type=Path, metavar=_("DOSSIER"), help=_("celles de ce dossier de travail")
    )
    show = verbs.add_parser("show", help=_("affiche la version montrée d'une conversation"))
    show.add_argument("id", help=_("la conversation"))
    search = verbs.add_parser("search", help=_("cherche dans les titres et les messages"))
    search.add_argument("text", help=_("le texte cherché"))
    search.add_argument("--json", action="store_true", help=_("un objet JSON par ligne"))
    export = verbs.add_parser(
        "export", help=_("exporte une conversation (Markdown, JSON sans perte, page HTML)")
    )
    export.add_argument("id", help=_("la conversation"))
    export.add_argument(
        "--format",
        choices=("md", "json", "html"),
        help=_("md, json ou html (défaut : l'extension de -o, sinon md)"),
    )
    export.add_argument(
        "-o", "--output", type=Path, metavar=_("FICHIER"), help=_("défaut : la sortie standard")
    )
    imported = verbs.add_parser("import", help=_("importe un export JSON"))
    imported.add_argument("file", type=Path, metavar=_("FICHIER.json"))
    branch = verbs.add_parser(
        "branch", help=_("montre la version d'une conversation qui passe par ce message")
    )
    branch.add_argument("id", help=_("la conversation"))
    branch.add_argument("message", type=int, help=_("le numéro du message (voir « show »)"))
    remove = verbs.add_parser(
        "rm", help=_("supprime une conversation et ses points de restauration")
    )
    remove.add_argument("id", help=_("la conversation"))
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, services: Services) -> int:
    verbs = {
        "list": _list,
        "show": _show,
        "search": _search,
        "export": _export,
        "import": _import,
        "rm": _remove,
        "branch": _branch,
    }
    with ExitStack() as stack:
        try:
            store = services.open_history()
            stack.callback(store.close)
            return verbs[args.verb](args, store, services)
        except (StoreUnavailable, ImportRefused) as exc:
            print(exc, file=sys.stderr)
            return 1
        except (BadInput, UnknownConversation, NotInConversation, BranchBusy) as exc:
            print(exc, file=sys.stderr)
            return 2


def _list(args: argparse.Namespace, store: ConversationStore, services: Services) -> int:
    workspace = None
    if args.workspace is not None:
        workspace = str(args.workspace.expanduser().resolve())
    _print_list(store.list_conversations(workspace=workspace), args.json)
    return 0


def _search(args: argparse.Namespace, store: ConversationStore, services: Services) -> int:
    _print_list(store.list_conversations(args.text), args.json)
    return 0


def _print_list(listed: list[ConversationInfo], as_json: bool) -> None:
    for info in listed:
        if as_json:
            print(json.dumps(_info_json(info), ensure_ascii=False))
            continue
        pin = "📌 " if info.pinned else ""
        count = ngettext("{n} message", "{n} messages", info.message_count).format(
            n=info.message_count
        )
        print(f"{info.id}  {_when(info.updated_at)}  {pin}{info.title}  ({count})")
    if not listed and not as_json:
        print(_("Aucune conversation."), file=sys.stderr)


def _info_json(info: ConversationInfo) -> dict[str, Any]:
    return {
        "id": info.id,
        "title": info.title,
        "workspace": info.workspace,
        "pinned": info.pinned,
        "created_at": info.created_at,
        "updated_at": info.updated_at,
        "message_count": info.message_count,
    }


def _show(args: argparse.Namespace, store: ConversationStore, services: Services) -> int:
    _known(store, args.id)
    versions = store.branches(args.id)
    for message in store.messages(args.id):
        branch = versions.get(message.id or -1)
        label = "  " + _("(version {label})").format(label=branch.label) if branch else ""
        print(f"[{message.id}] {_who(message)}{label}")
        if message.content:
            print(message.content)
        for call in message.tool_calls:
            print(f"  → {call.name} {json.dumps(call.args, ensure_ascii=False)[:200]}")
        print()
    return 0


def _who(message: ChatMessage) -> str:
    if message.role == "tool":
        mark = "✓" if message.meta.ok else "✗"
        return f"{mark} {message.tool_name or ''} : {message.meta.summary}"
    if message.role == "user":
        return _("Note de Loki") if message.origin == "harness" else _("Vous")
    return _("Loki ({model})").format(model=message.meta.model) if message.meta.model else "Loki"


def _export(args: argparse.Namespace, store: ConversationStore, services: Services) -> int:
    from loki_desktop.core.export.formats import ExportFailed, known_secrets, render, write

    fmt: Format = args.format or _format_of(args.output)
    conversation = store.export(args.id)
    try:
        text = render(conversation, fmt, known_secrets(services.settings.load(), services.secrets))
    except OSError as exc:  # an image file of the conversation went missing meanwhile
        raise BadInput(str(exc)) from exc
    if args.output is None:
        sys.stdout.write(text)
        return 0
    try:
        write(args.output.expanduser(), text)
    except ExportFailed as exc:
        print(exc, file=sys.stderr)
        return 1
    print(_("Exporté dans {path}").format(path=args.output), file=sys.stderr)
    return 0


def _format_of(output: Path | None) -> Format:
    suffix = output.suffix.lower().lstrip(".") if output is not None else ""
    known: dict[str, Format] = {"json": "json", "html": "html", "htm": "html"}
    return known.get(suffix, "md")


def _import(args: argparse.Namespace, store: ConversationStore, services: Services) -> int:
    from loki_desktop.core.export.jsonfile import ExportFormatError, parse_export

    text = _read_export(args.file.expanduser())
    try:
        conversation = parse_export(text)
    except ExportFormatError as exc:
        raise BadInput(str(exc)) from exc
    conversation_id = store.import_conversation(conversation)
    print(_("Importée : {id} « {title} »").format(id=conversation_id, title=conversation.title))
    return 0


def _read_export(path: Path) -> str:
    try:
        if not path.is_file():
            raise BadInput(_("Ce n'est pas un fichier : {path}").format(path=path))
        if path.stat().st_size > MAX_IMPORT_BYTES:
            raise BadInput(
                _(
                    "{path} est trop gros pour être un export de conversation ({mb} Mo au plus)."
                ).format(path=path, mb=MAX_IMPORT_BYTES // (1024 * 1024))
            )
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput(
            _("{path} n'est pas un export JSON de Loki (ce n'est pas du texte UTF-8).").format(
                path=path
            )
        ) from exc
    except OSError as exc:
        raise BadInput(
            _("{path} ne peut pas être lu ({error}).").format(path=path, error=exc.strerror or exc)
        ) from exc


def _branch(args: argparse.Namespace, store: ConversationStore, services: Services) -> int:
    """The version through message N becomes the one shown (and the one `ask` continues)."""
    _known(store, args.id)
    switch_branch(store, args.id, args.message)
    return _show(args, store, services)


def _remove(args: argparse.Namespace, store: ConversationStore, services: Services) -> int:
    _known(store, args.id)
    store.delete(args.id)
    if services.open_checkpoints is not None:
        try:
            checkpoints = services.open_checkpoints()
        except StoreUnavailable as exc:
            print(exc, file=sys.stderr)
        else:
            checkpoints.delete_conversation(args.id)
            checkpoints.close()
    print(_("Supprimée : {id}").format(id=args.id))
    return 0


def _known(store: ConversationStore, conversation_id: str) -> None:
    if not store.exists(conversation_id):
        raise UnknownConversation(_("Conversation introuvable : {id}").format(id=conversation_id))


def _when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp))
