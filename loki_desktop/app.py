"""Composition root: the only module that wires the core, persistence, the CLI and the window."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from loki_desktop import cli
from loki_desktop.cli.argv import split_server_command
from loki_desktop.cli.closed_stdout import run_quietly
from loki_desktop.core.i18n import _, set_language, set_typography
from loki_desktop.core.services import Services

if TYPE_CHECKING:
    from loki_desktop.core.ports import MemoryStore, PassageStore


def build_services() -> Services:
    from loki_desktop.persistence import paths
    from loki_desktop.persistence.checkpoints import CheckpointFolder
    from loki_desktop.persistence.history import History
    from loki_desktop.persistence.history_writer import BackgroundHistory
    from loki_desktop.persistence.secrets import KeyringSecrets
    from loki_desktop.persistence.settings_file import SettingsFile

    return Services(
        settings=SettingsFile(paths.settings_path()),
        secrets=KeyringSecrets(),
        open_history=lambda: History(paths.history_path()),
        # The window's writes go through a writer thread, streamed text in ~100 ms batches.
        open_window_history=lambda: BackgroundHistory(paths.history_path()),
        user_skills_dir=paths.user_skills_dir(),
        data_home=paths.data_home(),
        open_history_at=History,
        open_checkpoints=lambda: CheckpointFolder(paths.checkpoints_dir()),
        open_memories=lambda: _memory_file(paths.memories_path()),
        open_index=lambda root: _index_file(paths.index_path(root)),
    )


def _index_file(path: Path) -> PassageStore:
    from loki_desktop.persistence.workspace_index import IndexFile  # only when indexing

    return IndexFile(path)


def _memory_file(path: Path) -> MemoryStore:
    from loki_desktop.persistence.memory_store import MemoryFile  # only when memories are used

    return MemoryFile(path)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    return run_quietly(lambda: _main(arguments))


def _main(arguments: list[str]) -> int:
    choose_language()
    parser = cli.build_parser(arguments)
    parser.add_argument(
        "--quick",
        metavar="QUESTION",
        help=_("pose une question rapide dans la fenêtre (celle qui tourne déjà, s'il y en a une)"),
    )
    arguments, server_command = split_server_command(arguments)
    args = parser.parse_args(arguments)
    if server_command:
        args.command_words = server_command
    if args.install_desktop_entry or args.uninstall_desktop_entry:
        from loki_desktop import desktop_integration

        return desktop_integration.main(install_entry=args.install_desktop_entry)
    services = build_services()
    if args.command is not None:
        return cli.run_command(args, services)
    return run_window(services, quick=args.quick)


def choose_language() -> str:
    """The language of everything shown: the setting, else the system's (read before the
    parser is built, since its help is translated too)."""
    from loki_desktop.persistence import paths
    from loki_desktop.persistence.settings_file import read_language

    return set_language(read_language(paths.settings_path()))


def run_window(services: Services, quick: str | None = None) -> int:
    if no_display():
        # Qt would abort with a misleading hint about xcb-cursor0: say what is really wrong.
        print(
            _(
                "Loki Desktop ne trouve pas d'écran graphique (DISPLAY et WAYLAND_DISPLAY sont "
                "vides) : lancez-le depuis votre session de bureau, ou utilisez les commandes "
                "sans fenêtre (loki-desktop --help)."
            ),
            file=sys.stderr,
        )
        return 1
    # Imported here so headless commands never load Qt.
    from loki_desktop.ui.main import run as run_ui

    set_typography(True)  # non-breaking spaces in French: the window's lines wrap
    return run_ui(services, quick=quick)


def no_display() -> bool:
    """On X11/Wayland systems: no screen to open a window on, and no Qt platform chosen."""
    if sys.platform in ("win32", "darwin") or os.environ.get("QT_QPA_PLATFORM"):
        return False
    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
