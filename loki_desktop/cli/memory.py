"""`loki-desktop memory list|add|edit|rm|search`: what Loki remembers, from the terminal."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TYPE_CHECKING, Any

from loki_desktop.core.i18n import _, ngettext
from loki_desktop.core.ports import Memory, StoreUnavailable
from loki_desktop.core.services import Services

if TYPE_CHECKING:
    from loki_desktop.core.events import RecalledItem
    from loki_desktop.core.memory.recall import Memories

SEARCH_LIMIT = 10


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "memory", help=_("liste, ajoute, cherche ou oublie des souvenirs")
    )
    actions = parser.add_subparsers(dest="action", metavar=_("ACTION"), required=True)
    listing = actions.add_parser("list", help=_("les souvenirs, du plus récent au plus ancien"))
    add = actions.add_parser("add", help=_("garde un souvenir"))
    add.add_argument("text", help=_("le texte du souvenir"))
    edit = actions.add_parser("edit", help=_("change le texte d'un souvenir"))
    edit.add_argument("id", type=int, help=_("son numéro"))
    edit.add_argument("text", help=_("le nouveau texte"))
    remove = actions.add_parser("rm", help=_("oublie un souvenir"))
    remove.add_argument("id", type=int, help=_("son numéro (voir « memory list »)"))
    search = actions.add_parser("search", help=_("les souvenirs qu'un message rappellerait"))
    search.add_argument("text", help=_("le message ou les mots cherchés"))
    extract = actions.add_parser(
        "extract", help=_("demande au modèle ce qu'une conversation apprend de vous, et le garde")
    )
    extract.add_argument("--session", help=_("la conversation (défaut : la dernière)"))
    extract.add_argument("--model", help=_("modèle (défaut : réglages, sinon le premier)"))
    for sub in (listing, add, edit, remove, search, extract):
        sub.add_argument("--json", action="store_true", help=_("un objet JSON"))
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, services: Services) -> int:
    if services.open_memories is None:
        print(_("Les souvenirs ne sont pas disponibles ici."), file=sys.stderr)
        return 1
    from loki_desktop.core.memory.setup import memories_for
    from loki_desktop.core.model_servers import current_server

    settings = services.settings.load()
    memories = memories_for(
        settings, current_server(settings), services.open_memories, services.secrets
    )
    try:
        if args.action == "extract":
            return asyncio.run(_extract(args, services, memories))
        return asyncio.run(_act(args, memories))
    except StoreUnavailable as exc:
        print(exc, file=sys.stderr)
        return 1


async def _act(args: argparse.Namespace, memories: Memories) -> int:
    from loki_desktop.core.memory.remember import change, keep

    try:
        match args.action:
            case "list":
                return _show_list(args, memories.store().recent(limit=100_000))
            case "add":
                kept = await keep(memories, args.text, source="typed")
                return _show_kept(args, kept.memory, kept.refusal, existed=kept.existed)
            case "edit":
                kept = await change(memories, args.id, args.text)
                return _show_kept(args, kept.memory, kept.refusal)
            case "rm":
                return _show_removed(args, memories.store().delete(args.id))
            case _:
                found = await memories.recall(args.text, SEARCH_LIMIT)
                for notice in found.notices:
                    print(_("note : {text}").format(text=notice), file=sys.stderr)
                return _show_found(args, found.items, found.vectors)
    finally:
        for notice in memories.take_notices():
            print(_("note : {text}").format(text=notice), file=sys.stderr)
        await memories.aclose()


async def _extract(args: argparse.Namespace, services: Services, memories: Memories) -> int:
    """The facts a stored conversation teaches (one model call), kept and printed."""
    from loki_desktop.core.llm.backends import make_backend
    from loki_desktop.core.memory.extract import extract
    from loki_desktop.core.model_servers import current_server
    from loki_desktop.core.ports import BackendError

    settings = services.settings.load()
    history = services.open_history()
    backend = make_backend(current_server(settings), services.secrets)
    try:
        session = args.session or next(
            (c.id for c in history.list_conversations() if c.message_count), None
        )
        if session is None or not history.exists(session):
            print(_("Conversation introuvable : {id}").format(id=session or "-"), file=sys.stderr)
            return 2
        try:
            model = args.model or settings.model or (await backend.list_models())[0].name
        except (BackendError, IndexError) as exc:
            print(str(exc) or _("Aucun modèle sur le serveur."), file=sys.stderr)
            return 1
        kept = await extract(memories, backend, model, history.messages(session), session)
    finally:
        history.close()
        await backend.close()
        await memories.aclose()
    if args.json:
        _print_json([{"id": m.id, "text": m.text} for m in kept])
    elif not kept:
        print(_("Rien de nouveau à retenir de cette conversation."), file=sys.stderr)
    for memory in [] if args.json else kept:
        print(_("Mémorisé (n° {id}) : {text}").format(id=memory.id, text=memory.text))
    return 0


def _as_json(memory: Memory) -> dict[str, Any]:
    return {
        "id": memory.id,
        "text": memory.text,
        "source": memory.source,
        "created_at": memory.created_at,
        "conversation": memory.conversation_id,
    }


def _print_json(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))


def _show_list(args: argparse.Namespace, items: list[Memory]) -> int:
    if args.json:
        _print_json([_as_json(memory) for memory in items])
    elif not items:
        print(
            _("Aucun souvenir. Dites « retiens que… » à Loki, ou : loki-desktop memory add TEXTE")
        )
    else:
        for memory in items:
            print(f"{memory.id:>5}  {memory.text}")
        count = ngettext("{n} souvenir", "{n} souvenirs", len(items)).format(n=len(items))
        print(count, file=sys.stderr)
    return 0


def _show_kept(
    args: argparse.Namespace, memory: Memory | None, refusal: str, *, existed: bool = False
) -> int:
    if memory is None:
        print(refusal, file=sys.stderr)
        return 2
    if args.json:
        _print_json({**_as_json(memory), "existed": existed})
    elif existed:
        print(_("Déjà mémorisé (n° {id}) : {text}").format(id=memory.id, text=memory.text))
    else:
        print(_("Mémorisé (n° {id}) : {text}").format(id=memory.id, text=memory.text))
    return 0


def _show_removed(args: argparse.Namespace, removed: bool) -> int:
    if args.json:
        _print_json({"id": args.id, "removed": removed})
    elif removed:
        print(_("Souvenir n° {id} oublié.").format(id=args.id))
    else:
        print(_("Aucun souvenir n° {id}.").format(id=args.id), file=sys.stderr)
    return 0 if removed else 1


def _show_found(args: argparse.Namespace, items: tuple[RecalledItem, ...], vectors: str) -> int:
    if args.json:
        _print_json(
            {
                "vectors": vectors,
                "items": [{"id": i.id, "text": i.text, "score": i.score} for i in items],
            }
        )
        return 0
    if not items:
        print(_("Aucun souvenir ne correspond."), file=sys.stderr)
        return 0
    for item in items:
        print(f"{item.id:>5}  {item.score:5.2f}  {item.text}")
    return 0
