"""`loki-desktop models pull|rm|show NAME`: getting, removing and describing models.

Exit codes: 0 done, 1 the server failed (or is absent), 2 bad input (a name Ollama would
refuse, a model to remove that is not there), 130 interrupted (the pull resumes next time).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable, Coroutine
from typing import Any, TextIO, TypeVar

from loki_desktop.core.i18n import _
from loki_desktop.core.llm.pull import (
    BadModelName,
    PullProgress,
    check_model_name,
    describe,
    followed,
)
from loki_desktop.core.ports import BackendError, ModelNotFound, ModelProfile
from loki_desktop.core.services import Services
from loki_desktop.core.settings import resolve_host

BAR_WIDTH = 24
T = TypeVar("T", str, ModelProfile)  # what a command gets from the server (never an int)


def register_actions(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    pull = actions.add_parser(
        "pull", help=_("télécharge un modèle (reprend un téléchargement interrompu)")
    )
    pull.add_argument("name", metavar=_("NOM"), help=_("nom:étiquette, par exemple qwen3:8b"))
    _common(pull)
    pull.set_defaults(run=run_pull)
    remove = actions.add_parser("rm", help=_("supprime un modèle du serveur"))
    remove.add_argument("name", metavar=_("NOM"))
    _common(remove)
    remove.set_defaults(run=run_remove)
    show = actions.add_parser("show", help=_("ce que sait faire un modèle installé (/api/show)"))
    show.add_argument("name", metavar=_("NOM"))
    _common(show)
    show.set_defaults(run=run_show)


def _common(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS: `models --host H pull X` and `models pull X --host H` both work
    parser.add_argument("--host", default=argparse.SUPPRESS, help=_("adresse du serveur Ollama"))
    parser.add_argument(
        "--json",
        action="store_true",
        default=argparse.SUPPRESS,
        help=_("un objet JSON par ligne (progression, puis done)"),
    )


def run_pull(args: argparse.Namespace, services: Services) -> int:
    as_json = getattr(args, "json", False)
    try:
        name = check_model_name(args.name)
    except BadModelName as exc:
        return _fail(str(exc), 2, as_json)
    host = resolve_host(getattr(args, "host", None), services.settings.load())
    printer: ProgressPrinter = (
        JsonProgress(sys.stdout) if as_json else TerminalProgress(sys.stderr, name)
    )
    try:
        return asyncio.run(_pull(host, name, printer))
    except KeyboardInterrupt:
        printer.interrupted()
        return 130


async def _pull(host: str, name: str, printer: ProgressPrinter) -> int:
    from loki_desktop.core.llm.ollama import OllamaBackend

    backend = OllamaBackend(host)
    progress = PullProgress("")
    try:
        async for progress in followed(backend.pull(name)):
            printer.progress(progress)
    except BackendError as exc:
        printer.failed(str(exc))
        return 1
    finally:
        await backend.close()
    if not progress.finished:
        printer.failed(_("Ollama a fini sans dire que le téléchargement avait réussi."))
        return 1
    printer.done(name)
    return 0


def _on_server(
    args: argparse.Namespace, services: Services, act: Callable[[str, str], Coroutine[Any, Any, T]]
) -> T | int:
    """Run `act(host, name)` for a named model: the result, or the exit code after saying
    why not (2: a bad name or a model not installed; 1: the server failed)."""
    as_json = getattr(args, "json", False)
    try:
        name = check_model_name(args.name)
    except BadModelName as exc:
        return _fail(str(exc), 2, as_json)
    host = resolve_host(getattr(args, "host", None), services.settings.load())
    try:
        return asyncio.run(act(host, name))
    except ModelNotFound as exc:
        return _fail(str(exc), 2, as_json)
    except BackendError as exc:
        return _fail(str(exc), 1, as_json)


def run_remove(args: argparse.Namespace, services: Services) -> int:
    as_json = getattr(args, "json", False)
    name = _on_server(args, services, _remove)
    if isinstance(name, int):
        return name
    if as_json:
        print(json.dumps({"type": "done", "reason": "completed", "model": name}))
    else:
        print(_("« {name} » est supprimé.").format(name=name))
    return 0


def run_show(args: argparse.Namespace, services: Services) -> int:
    as_json = getattr(args, "json", False)
    profile = _on_server(args, services, _profile)
    if isinstance(profile, int):
        return profile
    from loki_desktop.core.llm.context_size import effective_context
    from loki_desktop.core.llm.profiles import capability_marks, profile_json

    # the context a turn really gets: the same number drives the budget and compaction
    used = effective_context(services.settings.load().num_ctx, profile)
    if as_json:
        shown = {**profile_json(profile), "context_used": used.tokens, "context_from": used.source}
        print(json.dumps(shown, ensure_ascii=False))
        return 0
    unknown = _("inconnu")
    rows = [
        (_("Modèle"), profile.name),
        (_("Capacités"), ", ".join(capability_marks(profile))),
        (_("Famille"), profile.family or unknown),
        (_("Paramètres"), profile.parameter_size or unknown),
        (_("Quantification"), profile.quantization or unknown),
        (_("Contexte max"), str(profile.context_length or unknown)),
        (_("Contexte utilisé"), used.describe()),
    ]
    if profile.think_values:
        levels = ", ".join(str(value).lower() for value in profile.think_values)
        rows.append((_("Réflexion"), levels))
    width = max(len(title) for title, _value in rows)
    for title, value in rows:
        print(f"{title.ljust(width)}  {value}")
    return 0


async def _profile(host: str, name: str) -> ModelProfile:
    from loki_desktop.core.llm.ollama import OllamaBackend

    backend = OllamaBackend(host)
    try:
        installed = [model.name for model in await backend.list_models()]
        if name not in installed:
            raise ModelNotFound(
                _("Le modèle « {model} » n'est pas installé sur {host}.").format(
                    model=name, host=host
                )
            )
        return await backend.model_profile(name)
    finally:
        await backend.close()


async def _remove(host: str, name: str) -> str:
    """Delete `name` on the server; the name removed."""
    from loki_desktop.core.llm.ollama import OllamaBackend

    backend = OllamaBackend(host)
    try:
        await backend.delete(name)
    finally:
        await backend.close()
    return name


def _fail(message: str, code: int, as_json: bool) -> int:
    if as_json:
        print(json.dumps({"type": "error", "message": message}, ensure_ascii=False))
        print(json.dumps({"type": "done", "reason": "error"}))
    else:
        print(message, file=sys.stderr)
    return code


# --- showing progress -------------------------------------------------------------------


class ProgressPrinter:
    def progress(self, progress: PullProgress) -> None: ...
    def done(self, name: str) -> None: ...
    def failed(self, message: str) -> None: ...
    def interrupted(self) -> None: ...


class JsonProgress(ProgressPrinter):
    """`{"type": "progress", "status", "completed", "total"}` lines, then `done`."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def _write(self, data: dict[str, object]) -> None:
        self.out.write(json.dumps(data, ensure_ascii=False) + "\n")
        self.out.flush()

    def progress(self, progress: PullProgress) -> None:
        self._write(
            {
                "type": "progress",
                "status": progress.status,
                "completed": progress.completed,
                "total": progress.total,
            }
        )

    def done(self, name: str) -> None:
        self._write({"type": "done", "reason": "completed", "model": name})

    def failed(self, message: str) -> None:
        self._write({"type": "error", "message": message})
        self._write({"type": "done", "reason": "error"})

    def interrupted(self) -> None:
        self._write({"type": "done", "reason": "interrupted"})


class TerminalProgress(ProgressPrinter):
    """One line redrawn on a terminal; plain lines (each status, each tenth) otherwise."""

    def __init__(self, err: TextIO, name: str) -> None:
        self.err = err
        self.name = name
        self.live = err.isatty()
        self._drawn = False
        self._last_status = ""
        self._last_tenth = -1

    def progress(self, progress: PullProgress) -> None:
        if self.live:
            self.err.write("\r\x1b[K" + _bar(progress) + " " + describe(progress))
            self._drawn = True
        else:
            tenth = int((progress.fraction or 0) * 10)
            kind = "pulling" if progress.status.startswith("pulling ") else progress.status
            if kind == self._last_status and tenth == self._last_tenth:
                return
            self._last_status, self._last_tenth = kind, tenth
            self.err.write(describe(progress) + "\n")
        self.err.flush()

    def _end_line(self) -> None:
        if self._drawn:
            self.err.write("\n")
            self._drawn = False

    def done(self, name: str) -> None:
        self._end_line()
        self.err.write(_("« {name} » est prêt.").format(name=name) + "\n")

    def failed(self, message: str) -> None:
        self._end_line()
        self.err.write(message + "\n")

    def interrupted(self) -> None:
        self._end_line()
        self.err.write(
            _(
                "Téléchargement interrompu. Relancez « loki-desktop models pull {name} » : "
                "il reprendra là où il s'est arrêté."
            ).format(name=self.name)
            + "\n"
        )


def _bar(progress: PullProgress) -> str:
    fraction = progress.fraction
    if fraction is None:
        return "[" + " " * BAR_WIDTH + "]"
    filled = int(fraction * BAR_WIDTH)
    return "[" + "#" * filled + "-" * (BAR_WIDTH - filled) + "]"
