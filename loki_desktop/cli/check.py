"""`loki-desktop check PATH...`: the static checks, printed as path:line:col: message."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from loki_desktop.core.i18n import _
from loki_desktop.core.services import Services

if TYPE_CHECKING:
    from loki_desktop.core.checks.model import CheckResult

EXIT_CLEAN, EXIT_PROBLEMS, EXIT_ERROR = 0, 1, 2


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "check",
        help=_(
            "vérifie des fichiers sans les exécuter (Python, JavaScript, TypeScript, HTML, "
            "CSS, JSON, TOML, YAML, shell)"
        ),
        description=_(
            "Vérifie des fichiers sans jamais les exécuter. Affiche une ligne "
            "« chemin:ligne:colonne: message » par problème. Code de sortie : 0 sans problème, "
            "1 si des problèmes sont trouvés, 2 si un fichier ne peut pas être lu."
        ),
    )
    parser.add_argument(
        "paths",
        nargs="+",
        type=Path,
        metavar=_("CHEMIN"),
        help=_("fichier, ou dossier (tous ses fichiers vérifiables)"),
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, services: Services) -> int:
    try:
        return asyncio.run(_check_all(args.paths))
    except KeyboardInterrupt:
        print("\nInterrompu.", file=sys.stderr)
        return 130


async def _check_all(paths: list[Path]) -> int:
    from loki_desktop.core.checks import tree
    from loki_desktop.core.checks.registry import Checkers

    checkers = Checkers()
    files: list[Path] = []
    status = EXIT_CLEAN
    for path in paths:
        if path.is_dir():
            found = tree.walk(path, checkers.can_check).files
            files += sorted(file for _mtime, file in found)
        elif not path.exists():
            print(_("{path} : fichier introuvable").format(path=path), file=sys.stderr)
            status = EXIT_ERROR
        elif not checkers.can_check(path):
            print(
                _("{path} : aucune vérification pour ce type de fichier").format(path=path),
                file=sys.stderr,
            )
        else:
            files.append(path)

    # the checks wait on subprocesses (ruff, node) most of the time: run a few at once
    limit = asyncio.Semaphore(os.cpu_count() or 2)

    async def check(path: Path) -> CheckResult:
        async with limit:
            return await checkers.check(path)

    results = await asyncio.gather(*(check(path) for path in files))
    found_problems = False
    for path, result in zip(files, results, strict=True):
        for problem in result.problems:
            print(problem.located(str(path)))
        found_problems = found_problems or bool(result.problems)
        if result.unreadable:
            print(
                _("{path} : illisible ({reason})").format(path=path, reason=result.skipped),
                file=sys.stderr,
            )
            status = EXIT_ERROR
        elif result.skipped:
            print(
                _("{path} : vérification incomplète ({reason})").format(
                    path=path, reason=result.skipped
                ),
                file=sys.stderr,
            )
    if status == EXIT_CLEAN and found_problems:
        status = EXIT_PROBLEMS
    return status
