"""Composition root: the only module that wires the core, persistence, the CLI and the window."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from loki_desktop import cli
from loki_desktop.core.services import Services


def build_services() -> Services:
    from loki_desktop.persistence import paths
    from loki_desktop.persistence.history import History
    from loki_desktop.persistence.secrets import KeyringSecrets
    from loki_desktop.persistence.settings_file import SettingsFile

    return Services(
        settings=SettingsFile(paths.settings_path()),
        secrets=KeyringSecrets(),
        open_history=lambda: History(paths.history_path()),
        user_skills_dir=paths.user_skills_dir(),
        data_home=paths.data_home(),
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = cli.build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    services = build_services()
    if args.command is not None:
        return cli.run_command(args, services)
    return run_window(services)


def run_window(services: Services) -> int:
    # Imported here so headless commands never load Qt.
    from loki_desktop.ui.main import run as run_ui

    return run_ui(services)
