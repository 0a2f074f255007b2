"""Headless commands on the same core as the window; `loki-desktop` alone opens the window."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence
from typing import Protocol

from loki_desktop import __version__
from loki_desktop.core.i18n import _
from loki_desktop.core.services import Services

from .parser_words import use_loki_words

# Each command lives in its own module with `register(subparsers)` and `run(args, services)`.
# Modules are imported only to register their arguments: keep their top-level imports light.
# Keyed by the command's name (as each module registers it).
COMMANDS = {
    "ask": "loki_desktop.cli.ask",
    "models": "loki_desktop.cli.models",
    "mcp": "loki_desktop.cli.mcp",
    "skills": "loki_desktop.cli.skills",
    "check": "loki_desktop.cli.check",
    "eval": "loki_desktop.cli.eval",
    "changes": "loki_desktop.cli.changes",
    "undo": "loki_desktop.cli.undo",
    "memory": "loki_desktop.cli.memory",
    "history": "loki_desktop.cli.history",
    "mcp-fetch-server": "loki_desktop.cli.fetch_server",
}
COMMAND_MODULES = list(COMMANDS.values())


class CommandModule(Protocol):
    def register(self, subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None: ...

    def run(self, args: argparse.Namespace, services: Services) -> int: ...


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser; given the arguments, only the command they name is registered
    (a one-shot command then imports and builds one module's arguments, not six)."""
    use_loki_words()  # usage:, options and argparse's errors in the person's language too
    parser = argparse.ArgumentParser(
        prog="loki-desktop",
        description=_(
            "Loki Desktop : un agent de bureau pour les modèles locaux d'Ollama. "
            "Sans commande, ouvre la fenêtre."
        ),
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"loki-desktop {__version__}",
        help=_("affiche la version du programme et quitte"),  # 3.11 leaves its own English
    )
    menu = parser.add_mutually_exclusive_group()
    menu.add_argument(
        "--install-desktop-entry",
        action="store_true",
        help=_("ajoute Loki Desktop (entrée et icône) au menu des applications de l'utilisateur"),
    )
    menu.add_argument(
        "--uninstall-desktop-entry",
        action="store_true",
        help=_("retire Loki Desktop du menu des applications de l'utilisateur"),
    )
    subparsers = parser.add_subparsers(dest="command", metavar=_("COMMANDE"))
    for name in _needed(argv):
        module: CommandModule = importlib.import_module(name)
        module.register(subparsers)
    return parser


def _needed(argv: Sequence[str] | None) -> list[str]:
    """The modules to register: the named command's; none for the bare window; all for help,
    an unknown word (argparse then lists the commands) or when the arguments are not given."""
    if argv is None:
        return COMMAND_MODULES
    words = list(argv)
    first = next((index for index, arg in enumerate(words) if not arg.startswith("-")), None)
    if {"-h", "--help"} & set(words[:first]):
        return COMMAND_MODULES
    if first is None:
        return []
    return [COMMANDS[words[first]]] if words[first] in COMMANDS else COMMAND_MODULES


def run_command(args: argparse.Namespace, services: Services) -> int:
    run = args.run
    result: int = run(args, services)
    return result
