"""`loki-desktop ask`: one agent turn, headless, printed as text or JSON lines."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from loki_desktop.cli.ask_mcp import add_mcp_arguments
from loki_desktop.cli.ask_message import (
    add_message_arguments,
    fit_files_to_context,
    load_files,
    message_words,
)
from loki_desktop.cli.caps import add_cap_arguments, caps_from_args
from loki_desktop.cli.interrupt import Interruption
from loki_desktop.cli.servers import add_server_arguments, chosen_server
from loki_desktop.core.events import Done, Error, Event, Notice
from loki_desktop.core.i18n import _
from loki_desktop.core.ports import BackendError, CheckpointStore, StoreUnavailable
from loki_desktop.core.services import Services

if TYPE_CHECKING:
    from loki_desktop.core.agent import Agent
    from loki_desktop.core.assembly import TurnOptions
    from loki_desktop.core.attachments.model import FileAttachment
    from loki_desktop.core.image_attachment import ImageAttachment
    from loki_desktop.core.knowledge.index import KnowledgeTools
    from loki_desktop.core.mcp.manager import McpManager
    from loki_desktop.core.mcp.sampling import ModelSource
    from loki_desktop.core.memory.recall import Memories
    from loki_desktop.core.model_servers import ModelServer
    from loki_desktop.core.settings import Settings
    from loki_desktop.core.tools.preview import PreviewKeeper


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("ask", help=_("pose une question à l'agent, sans fenêtre"))
    parser.add_argument(
        "prompt",
        nargs="?",
        help=_("le message (facultatif avec --prompt, sans objet avec --regenerate)"),
    )
    parser.add_argument("--workspace", type=Path, help=_("dossier de travail (défaut : courant)"))
    parser.add_argument(
        "--model", help=_("modèle (défaut : réglages, sinon le premier du serveur)")
    )
    add_server_arguments(parser)
    parser.add_argument("--session", help=_("continue cette conversation"))
    _add_branch_arguments(parser)
    parser.add_argument(
        "--allow-shell",
        action="store_true",
        help=_("autorise run_shell (sinon toute commande est refusée)"),
    )
    parser.add_argument(
        "--allow-writes",
        action="store_true",
        help=_(
            "avec le réglage « Demander avant d'écrire », autorise les écritures "
            "(sinon write_file et edit_file sont refusés ; réglage éteint : sans effet)"
        ),
    )
    parser.add_argument(
        "--write-without-undo",
        action="store_true",
        help=_(
            "écrire quand même, sans retour possible : un fichier dont l'état d'avant ne peut "
            "pas être gardé (disque plein, plus gros que le budget) est écrit quand même "
            "(sinon l'écriture est refusée)"
        ),
    )
    parser.add_argument(
        "--think",
        metavar="MODE",
        help=_(
            "réflexion : auto (défaut du modèle), on, off, ou un niveau que le modèle "
            "propose (low, medium, high) ; défaut : les réglages"
        ),
    )
    parser.add_argument(
        "--show-thinking",
        action="store_true",
        help=_("affiche la réflexion du modèle (sur stderr, en grisé)"),
    )
    parser.add_argument(
        "--image",
        action="append",
        type=Path,
        default=[],
        metavar=_("FICHIER"),
        help=_("joint une image PNG, JPEG, WebP ou GIF (modèle de vision ; répétable)"),
    )
    _intelligence_arguments(parser)
    add_message_arguments(parser)
    add_mcp_arguments(parser)
    add_cap_arguments(parser)
    parser.add_argument("--json", action="store_true", help=_("un objet JSON par ligne"))
    parser.set_defaults(run=run)


def _intelligence_arguments(parser: argparse.ArgumentParser) -> None:
    """The Intelligence switches for one turn (default: the settings')."""
    parser.add_argument("--no-skills", action="store_true", help=_("n'injecte aucune méthode"))
    parser.add_argument(
        "--no-memory",
        action="store_true",
        help=_("ce tour sans souvenirs : rien n'est rappelé ni mémorisé"),
    )
    parser.add_argument(
        "--no-index",
        action="store_true",
        help=_("ce tour sans l'index du dossier (pas d'outil search_workspace)"),
    )
    parser.add_argument(
        "--plan",
        action=argparse.BooleanOptionalAction,
        default=None,
        help=_("un plan numéroté d'abord pour une demande en plusieurs actions (ou pas)"),
    )
    parser.add_argument(
        "--review",
        action=argparse.BooleanOptionalAction,
        default=None,
        help=_("relit la réponse et la corrige une fois si besoin (ou pas)"),
    )
    parser.add_argument(
        "--code-model",
        metavar="M",
        help=_("modèle des tours de code (« » : le modèle de conversation)"),
    )


def _add_branch_arguments(parser: argparse.ArgumentParser) -> None:
    """--regenerate and --edit: a new version of an answer or of one of your messages."""
    parser.add_argument(
        "--regenerate",
        action="store_true",
        help=_(
            "avec --session : refait la dernière réponse (avec --model, par un autre modèle) ; "
            "l'ancienne reste une autre version de la conversation"
        ),
    )
    parser.add_argument(
        "--edit",
        type=int,
        metavar="MESSAGE",
        help=_(
            "avec --session : envoie le message à la place de votre message MESSAGE (son "
            "numéro dans « history show ») ; l'ancienne version reste"
        ),
    )


def run(args: argparse.Namespace, services: Services) -> int:
    from loki_desktop.cli.output import JsonPrinter, PlainPrinter
    from loki_desktop.core.llm.thinking import valid_mode

    refusal = _refuse_arguments(args)
    if refusal is not None:
        print(refusal, file=sys.stderr)
        return 2
    workspace = (args.workspace or Path.cwd()).expanduser()
    if not workspace.is_dir():
        print(
            _("Le dossier de travail n'existe pas : {path}").format(path=workspace), file=sys.stderr
        )
        return 2
    if args.think is not None and not valid_mode(args.think):
        print(
            _("--think : valeur inconnue « {value} » (auto, on, off, low…)").format(
                value=args.think
            ),
            file=sys.stderr,
        )
        return 2
    images = _load_images(args.image)
    if isinstance(images, str):  # unreadable, too big, not an image: nothing is sent
        print(images, file=sys.stderr)
        return 2
    try:  # a broken prompt or a refused file: one sentence, nothing sent
        words = "" if args.regenerate else message_words(args, services.data_home)
        files = load_files(args.attach)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    from loki_desktop.cli import interrupt

    printer: Callable[[Event], None] = (
        JsonPrinter()
        if args.json
        else PlainPrinter(show_thinking=args.show_thinking, show_stats=args.stats)
    )
    message = _Message(words, images, files)
    code = interrupt.run(lambda stop: _ask(args, services, workspace, printer, message, stop))
    if code > 128 and not args.json:
        print("\n" + _("Interrompu."), file=sys.stderr)
    return code


async def _ask(
    args: argparse.Namespace,
    services: Services,
    workspace: Path,
    emit: Callable[[Event], None],
    message: _Message,
    interruption: Interruption,
) -> int:
    # imported here: every start (the window's too) imports this module to build the parser
    from loki_desktop.cli.approval import FixedApprover
    from loki_desktop.core.assembly import build_agent
    from loki_desktop.core.llm.backends import make_backend

    settings = services.settings.load()
    server = chosen_server(args, settings)
    try:
        store = services.open_history()
    except StoreUnavailable as exc:  # locked by another program, unreadable, too new
        print(exc, file=sys.stderr)
        return 1
    backend = make_backend(server, services.secrets)
    options = _turn_options(args, settings, services)
    mcp = _mcp_manager(args, settings, services, workspace)
    options.extra_sources.append(mcp)
    options.memories = _memories(args, services, settings, server)
    options.knowledge = _knowledge(args, services, settings, server, workspace, options)
    preview = _preview(mcp, workspace)
    checkpoints = _open_checkpoints(services)
    agent = build_agent(
        settings=settings,
        backend=backend,
        store=store,
        workspace=workspace,
        approver=FixedApprover(args.allow_shell, args.allow_writes, args.write_without_undo),
        options=options,
        checkpoints=checkpoints,
    )
    _answer_servers(mcp, args, lambda: (backend, agent.config.model))
    # a corrupt settings file or history moved aside: said in the turn's own stream
    agent.pending_notices += services.settings.take_notices() + store.take_notices()
    if checkpoints is not None:
        agent.pending_notices += checkpoints.take_notices()
    try:
        joined = await _with_server_offers(mcp, args, emit, message)
        if joined is None:
            return 2
        return await _stream(agent, args, emit, joined, interruption)
    finally:
        if preview is not None:
            preview.close()
        await mcp.aclose()
        await _close_recall(options)
        await backend.close()
        store.close()
        if checkpoints is not None:
            checkpoints.close()


async def _close_recall(options: TurnOptions) -> None:
    """The index, the memories and their embedders (the index shares the memories')."""
    if options.knowledge is not None:
        await options.knowledge.aclose()
    if options.memories is not None:
        await options.memories.aclose()
    elif options.knowledge is not None:
        await options.knowledge.knowledge.embedders.aclose()


def _turn_options(args: argparse.Namespace, settings: Settings, services: Services) -> TurnOptions:
    from loki_desktop.core.assembly import TurnOptions

    return TurnOptions(
        model=args.model or "",
        think=args.think,
        skills=not args.no_skills,
        plan=args.plan,
        review=args.review,
        code_model=args.code_model,
        user_skills_dir=services.user_skills_dir,
        # --system for this turn; else the conversation's own instructions (set in the window)
        system=args.system
        if args.system is not None
        else settings.conversation_instructions.get(args.session or ""),
        agents_md=not args.no_agents_md,
        caps=caps_from_args(args),
    )


def _mcp_manager(
    args: argparse.Namespace, settings: Settings, services: Services, workspace: Path
) -> McpManager:
    """MCP servers start at the turn's first step, only those turned on (`mcp` is not even
    imported otherwise); the caller closes the manager so no server outlives the command."""
    from loki_desktop.core.mcp.manager import McpManager

    wait = {} if args.mcp_wait is None else {"connect_wait": max(0.0, args.mcp_wait)}
    mcp = McpManager.from_settings(
        settings.mcp_servers, services.secrets, data_home=services.data_home, **wait
    )
    mcp.set_roots([workspace])
    return mcp


async def _with_server_offers(
    mcp: McpManager, args: argparse.Namespace, emit: Callable[[Event], None], message: _Message
) -> _Message | None:
    """The message with a server's prompt (--prompt SERVER/NAME) and resources (--resource);
    None when one cannot be had (said, nothing sent)."""
    from dataclasses import replace

    from loki_desktop.cli.ask_mcp import with_server_offers

    try:
        words, images = await with_server_offers(mcp, args, message.words, message.images)
    except ValueError as exc:
        emit(Error(str(exc)))
        if args.json:
            print(exc, file=sys.stderr)
        return None
    return replace(message, words=words, images=images)


async def _stream(
    agent: Agent,
    args: argparse.Namespace,
    emit: Callable[[Event], None],
    message: _Message,
    interruption: Interruption,
) -> int:
    """The turn's events to `emit`; the exit code (1 when the turn ended on an error)."""
    failed = False
    try:
        refusal = await _refusal(agent, args, message)
        if refusal:
            emit(Error(refusal))
            if args.json:
                print(refusal, file=sys.stderr)
            return 2
        if message.notice:
            emit(Notice(message.notice, "attachment_cut"))
        async for event in _turn(agent, args, message):
            emit(event)
            if isinstance(event, Error) and args.json:
                # the JSON goes to programs; the sentence is for the person running it
                print(event.message, file=sys.stderr)
            if isinstance(event, Done):
                failed = event.reason == "error"
    except asyncio.CancelledError:
        if interruption.signum is not None and args.json:
            # the promised last line, before the clean-up (the turn has stored what it said)
            _emit_last(emit, Done("interrupted", agent.last_conversation or args.session))
        raise
    return 1 if failed else 0


def _memories(
    args: argparse.Namespace, services: Services, settings: Settings, server: ModelServer
) -> Memories | None:
    """The turn's memories: none with --no-memory, the setting off, or no store (nothing
    is then opened nor embedded)."""
    if args.no_memory or not settings.memories or services.open_memories is None:
        return None
    from loki_desktop.core.memory.setup import memories_for

    return memories_for(settings, server, services.open_memories, services.secrets)


def _knowledge(
    args: argparse.Namespace,
    services: Services,
    settings: Settings,
    server: ModelServer,
    workspace: Path,
    options: TurnOptions,
) -> KnowledgeTools | None:
    """The workspace's index and its search tool: none with --no-index or the setting off."""
    if args.no_index or not settings.workspace_index or services.open_index is None:
        return None
    from loki_desktop.core.knowledge.setup import knowledge_tools
    from loki_desktop.core.memory.setup import embedders_for

    embedders = (
        options.memories.embedders
        if options.memories is not None
        else embedders_for(settings, server, services.secrets)
    )
    return knowledge_tools(workspace, services.open_index, embedders)


def _refuse_arguments(args: argparse.Namespace) -> str | None:
    """The sentence that says why these arguments make no turn (None: they do)."""
    if (args.regenerate or args.edit is not None) and args.session is None:
        return _(
            "--regenerate et --edit demandent --session ID (voir « loki-desktop history list »)."
        )
    if args.regenerate and args.edit is not None:
        return _("--regenerate et --edit ne vont pas ensemble : choisissez l'un des deux.")
    if args.regenerate and (args.prompt is not None or args.image):
        return _("--regenerate refait une réponse : il ne prend ni message ni image.")
    if (args.regenerate or args.edit is not None) and (args.attach or args.prompt_name):
        return _(
            "--attach et --prompt vont avec un nouveau message, pas avec --regenerate ni --edit."
        )
    if not args.regenerate and not args.prompt and args.prompt_name is None:
        return _('Le message manque : loki-desktop ask "votre question".')
    return None


def _turn(agent: Agent, args: argparse.Namespace, message: _Message) -> AsyncIterator[Event]:
    """The turn the arguments ask for: a new message, a regenerated answer or an edit."""
    if args.regenerate:
        return agent.regenerate(args.session)
    if args.edit is not None:
        return agent.edit_and_resend(args.session, args.edit, message.words, message.images)
    return agent.run_turn(message.words, args.session, message.images, message.files)


@dataclass
class _Message:
    """What the turn sends: the words, the images, the files (fitted before the turn)."""

    words: str
    images: list[ImageAttachment]
    files: tuple[FileAttachment, ...]
    notice: str = ""  # the files were cut to their first part (--first-part)


async def _refusal(agent: Agent, args: argparse.Namespace, message: _Message) -> str | None:
    """Why nothing can be sent (a model without vision, files past the context), or None;
    the files are cut to their first part when --first-part allows it."""
    if message.images and (refusal := await _refuse_images(agent)):
        return refusal
    fitted = await fit_files_to_context(
        agent, message.words, message.files, first_part=args.first_part
    )
    if fitted.refusal:
        return fitted.refusal
    message.files = fitted.files
    message.notice = fitted.notice
    return None


def _answer_servers(mcp: McpManager, args: argparse.Namespace, model: ModelSource) -> None:
    """What the servers' own requests get: the terminal (--interactive) or a refusal with a
    notice; the turn's model for sampling only with --allow-sampling."""
    from loki_desktop.cli.mcp_host import TerminalHost
    from loki_desktop.core.mcp.sampling import Sampler

    host = TerminalHost(interactive=args.interactive)
    mcp.client.host = host
    mcp.client.sampler = Sampler(model, host)
    mcp.client.allow_sampling = args.allow_sampling


def _preview(mcp: McpManager, workspace: Path) -> PreviewKeeper | None:
    """The workspace served on loopback while the browser server is on; the model reads its
    URL in the browser's navigate tool."""
    from loki_desktop.core.mcp.browser import PLAYWRIGHT_ID
    from loki_desktop.core.tools.preview import PreviewKeeper

    if not mcp.is_enabled(PLAYWRIGHT_ID):
        return None
    keeper = PreviewKeeper()
    mcp.preview_url = keeper.follow(workspace)
    return keeper


def _open_checkpoints(services: Services) -> CheckpointStore | None:
    """Where the turn keeps the files' previous states (`undo`); None when it cannot be
    opened (the turn then runs without, and says why)."""
    if services.open_checkpoints is None:
        return None
    try:
        return services.open_checkpoints()
    except StoreUnavailable as exc:
        print(exc, file=sys.stderr)
        return None


def _load_images(paths: list[Path]) -> list[ImageAttachment] | str:
    """The images to attach, or the sentence that says why one cannot be."""
    if not paths:
        return []
    from loki_desktop.core.images import ImageRefused, load_image  # Pillow: only when asked

    try:
        return [load_image(path.expanduser()) for path in paths]
    except ImageRefused as exc:
        return str(exc)


async def _refuse_images(agent: Agent) -> str | None:
    """Why the turn's model cannot take images (None: it can, or the turn will say why not)."""
    from loki_desktop.core.llm.mode import no_vision_message

    try:
        profile = await agent.model_profile()
        sees = await agent.budget.profiles.takes_images(agent.backend, profile.name)
    except BackendError:
        return None  # unreachable, no model: the turn says so in its own words
    return None if sees else no_vision_message(profile.name)


def _emit_last(emit: Callable[[Event], None], event: Event) -> None:
    """Written whenever it still can be: a closed stdout (the reader went away) is no error."""
    with contextlib.suppress(OSError, ValueError):
        emit(event)
