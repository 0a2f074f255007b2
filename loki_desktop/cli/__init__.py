"""Headless commands on the same core as the window; `loki-desktop` alone opens the window."""

from __future__ import annotations

import argparse
import importlib
from typing import Protocol

from loki_desktop import __version__
from loki_desktop.core.services import Services

# Each command lives in its own module with `register(subparsers)` and `run(args, services)`.
# Modules are imported only to register their arguments: keep their top-level imports light.
COMMAND_MODULES = [
    "loki_desktop.cli.ask",
    "loki_desktop.cli.models",
    "loki_desktop.cli.mcp",
    "loki_desktop.cli.skills",
    "loki_desktop.cli.check",
    "loki_desktop.cli.eval",
    "loki_desktop.cli.fetch_server",
]


class CommandModule(Protocol):
    def register(self, subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None: ...

    def run(self, args: argparse.Namespace, services: Services) -> int: ...


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="loki-desktop",
        description="Loki Desktop : un agent de bureau pour les modèles locaux d'Ollama. "
        "Sans commande, ouvre la fenêtre.",
    )
    parser.add_argument("--version", action="version", version=f"loki-desktop {__version__}")
    menu = parser.add_mutually_exclusive_group()
    menu.add_argument(
        "--install-desktop-entry",
        action="store_true",
        help="ajoute Loki Desktop (entrée et icône) au menu des applications de l'utilisateur",
    )
    menu.add_argument(
        "--uninstall-desktop-entry",
        action="store_true",
        help="retire Loki Desktop du menu des applications de l'utilisateur",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMANDE")
    for name in COMMAND_MODULES:
        module: CommandModule = importlib.import_module(name)
        module.register(subparsers)
    return parser


def run_command(args: argparse.Namespace, services: Services) -> int:
    run = args.run
    result: int = run(args, services)
    return result
