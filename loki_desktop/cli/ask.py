"""`loki-desktop ask`: one agent turn, headless, printed as text or JSON lines."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from pathlib import Path

from loki_desktop.core.events import Done, Error, Event
from loki_desktop.core.ports import StoreUnavailable
from loki_desktop.core.services import Services
from loki_desktop.core.settings import resolve_host


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("ask", help="pose une question à l'agent, sans fenêtre")
    parser.add_argument("prompt", help="le message")
    parser.add_argument("--workspace", type=Path, help="dossier de travail (défaut : courant)")
    parser.add_argument("--model", help="modèle Ollama (défaut : réglages, sinon le premier)")
    parser.add_argument("--host", help="adresse du serveur Ollama")
    parser.add_argument("--session", help="continue cette conversation")
    parser.add_argument(
        "--allow-shell",
        action="store_true",
        help="autorise run_shell (sinon toute commande est refusée)",
    )
    parser.add_argument("--no-skills", action="store_true", help="n'injecte aucune méthode")
    parser.add_argument("--json", action="store_true", help="un objet JSON par ligne")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, services: Services) -> int:
    from loki_desktop.cli.output import JsonPrinter, PlainPrinter

    workspace = (args.workspace or Path.cwd()).expanduser()
    if not workspace.is_dir():
        print(f"Le dossier de travail n'existe pas : {workspace}", file=sys.stderr)
        return 2
    printer: Callable[[Event], None] = JsonPrinter() if args.json else PlainPrinter()
    try:
        return asyncio.run(_ask(args, services, workspace, printer))
    except KeyboardInterrupt:
        print("\nInterrompu.", file=sys.stderr)
        return 130


async def _ask(
    args: argparse.Namespace,
    services: Services,
    workspace: Path,
    emit: Callable[[Event], None],
) -> int:
    # imported here: every start (the window's too) imports this module to build the parser
    from loki_desktop.cli.approval import FixedApprover
    from loki_desktop.core.assembly import TurnOptions, build_agent
    from loki_desktop.core.llm.ollama import OllamaBackend
    from loki_desktop.core.mcp.manager import McpManager

    settings = services.settings.load()
    try:
        store = services.open_history()
    except StoreUnavailable as exc:  # locked by another program, unreadable, too new
        print(exc, file=sys.stderr)
        return 1
    host = resolve_host(args.host, settings)
    backend = OllamaBackend(host)
    options = TurnOptions(
        model=args.model or "",
        skills=not args.no_skills,
        user_skills_dir=services.user_skills_dir,
    )
    # MCP servers start at the turn's first step, only those turned on (`mcp` is not even
    # imported otherwise); the manager is closed below so no server outlives the command.
    mcp = McpManager.from_settings(settings.mcp_servers, services.secrets)
    options.extra_sources.append(mcp)
    agent = build_agent(
        settings=settings,
        backend=backend,
        store=store,
        workspace=workspace,
        approver=FixedApprover(args.allow_shell),
        options=options,
    )
    # a corrupt settings file or history moved aside: said in the turn's own stream
    agent.pending_notices += services.settings.take_notices() + store.take_notices()
    failed = False
    try:
        async for event in agent.run_turn(args.prompt, args.session):
            emit(event)
            if isinstance(event, Error) and args.json:
                # the JSON goes to programs; the sentence is for the person running it
                print(event.message, file=sys.stderr)
            if isinstance(event, Done):
                failed = event.reason == "error"
    finally:
        await mcp.aclose()
        await backend.close()
        store.close()
    return 1 if failed else 0
