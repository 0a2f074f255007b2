"""`loki-desktop eval`: the bundled task suite against models, harness on and off.

Prints one line per finished task, then a Markdown table (or, with --json, one `task`
event per line then a `summary`). The last results are kept in <data>/eval/last.json and
last.md (Réglages → Intelligence shows them). Exit 0 when the run completed (whatever the
pass rate), 1 when the server failed, 2 on bad input.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from loki_desktop.cli.caps import add_cap_arguments, caps_from_args
from loki_desktop.cli.servers import add_server_arguments, chosen_server
from loki_desktop.core.evaluation.variants import HARNESS_CHOICES
from loki_desktop.core.i18n import _
from loki_desktop.core.services import Services

if TYPE_CHECKING:
    from loki_desktop.core.evaluation.runner import Harness, MemoriesAt, TaskResult
    from loki_desktop.core.evaluation.tasks import EvalTask
    from loki_desktop.core.model_servers import ModelServer
    from loki_desktop.core.ports import ChatBackend, MemoryStore, SecretStore
    from loki_desktop.core.settings import Settings

REPLAY_SCRIPTS = ("oracle", "sabotage", "text")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "eval", help=_("mesure un modèle sur une suite de tâches, avec et sans le harnais de Loki")
    )
    parser.add_argument("--model", action="append", default=[], help=_("modèle (répétable)"))
    parser.add_argument("--suite", default="basic", help=_("suite de tâches (défaut : basic)"))
    parser.add_argument(
        "--harness",
        action="append",
        choices=HARNESS_CHOICES,
        default=[],
        help=_(
            "on (tout le harnais), off (sans), both (les deux, défaut), ou on sans une partie : "
            "memory-off, plan-off, review-off (répétable)"
        ),
    )
    parser.add_argument(
        "--tasks", type=int, metavar="N", help=_("seulement les N premières tâches")
    )
    parser.add_argument("--json", action="store_true", help=_("un objet JSON par ligne"))
    add_server_arguments(parser)
    parser.add_argument(
        "--replay",
        metavar=_("SCRIPT|DOSSIER"),
        help=_("sans modèle : réponses rejouées (oracle, sabotage, text, ou un dossier --record)"),
    )
    parser.add_argument(
        "--record",
        type=Path,
        metavar=_("DOSSIER"),
        help=_("garde les réponses, jusqu'à la fin de chaque tâche quelle qu'elle soit"),
    )
    add_cap_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, services: Services) -> int:
    from loki_desktop.core.evaluation.suite_basic import SUITES

    if args.suite not in SUITES:
        print(
            _("Suite inconnue : {suite} (connues : {known})").format(
                suite=args.suite, known=", ".join(SUITES)
            ),
            file=sys.stderr,
        )
        return 2
    tasks = SUITES[args.suite]()
    if args.tasks is not None:
        if args.tasks < 1:
            print(_("--tasks attend un nombre positif."), file=sys.stderr)
            return 2
        tasks = tasks[: args.tasks]
    replay = args.replay
    if replay and replay not in REPLAY_SCRIPTS and not Path(replay).is_dir():
        known = ", ".join(REPLAY_SCRIPTS)
        print(
            _("--replay : ni {known}, ni un dossier : {replay}").format(known=known, replay=replay),
            file=sys.stderr,
        )
        return 2
    try:
        return asyncio.run(_eval(args, services, tasks))
    except KeyboardInterrupt:
        print("\n" + _("Interrompu."), file=sys.stderr)
        return 130


async def _eval(args: argparse.Namespace, services: Services, tasks: list[EvalTask]) -> int:
    from loki_desktop.core.evaluation.report import (
        keep_results,
        markdown_table,
        summarize,
        summary_event,
    )
    from loki_desktop.core.evaluation.runner import Runner
    from loki_desktop.core.ports import BackendError

    settings = services.settings.load()
    from loki_desktop.core.evaluation.variants import modes_of

    modes: list[Harness] = modes_of(args.harness)
    server = chosen_server(args, settings)
    backends = _Backends(args, server, services.secrets)
    try:
        models = args.model or [settings.model or await backends.first_model()]
    except BackendError as exc:
        print(exc, file=sys.stderr)
        await backends.close()
        return 1
    assert services.open_history_at is not None
    runner = Runner(
        backends.for_task,
        services.open_history_at,
        services.secrets,
        settings,
        memories_at=_memories_at(args, services, settings, server),
        caps=caps_from_args(args),
    )
    results: list[TaskResult] = []
    try:
        async for result in runner.run(models, modes, tasks):
            results.append(result)
            backends.save(result)
            _print_task(result, args.json, len(results), len(tasks) * len(models) * len(modes))
    finally:
        await backends.close()
    summaries = summarize(results)
    table = markdown_table(summaries, results)
    keep_results(services.data_home / "eval", results)
    if args.json:
        print(json.dumps(summary_event(summaries, results), ensure_ascii=False), flush=True)
    else:
        print(table, end="")
    return 0


def _memories_at(
    args: argparse.Namespace, services: Services, settings: Settings, server: ModelServer
) -> MemoriesAt | None:
    """Each task's memories, in its own folder: vectors from the server's embedding model
    (else the embedded one), words only for a replay (no model to embed with)."""
    open_at = services.open_memories_at
    if open_at is None:
        return None
    from loki_desktop.core.memory.recall import Memories
    from loki_desktop.core.memory.setup import embedders_for
    from loki_desktop.core.memory.vector_state import EmbedderChoice

    def memories(folder: Path) -> Memories:
        def store() -> MemoryStore:
            return open_at(folder / "memories.db")

        if args.replay:
            return Memories(store, EmbedderChoice(None, fallback=lambda: None))
        return Memories(store, embedders_for(settings, server, services.secrets))

    return memories


class _Backends:
    """A replay per task, or one real backend for the run (wrapped when recording)."""

    def __init__(
        self, args: argparse.Namespace, server: ModelServer, secrets: SecretStore | None
    ) -> None:
        self.replay: str | None = args.replay
        self.record: Path | None = args.record
        self.server = server
        self.secrets = secrets
        self._real: Any = None
        self._recorders: dict[tuple[str, str, str], Any] = {}

    def _backend(self) -> Any:
        if self._real is None:
            from loki_desktop.core.llm.backends import make_backend

            self._real = make_backend(self.server, self.secrets)
        return self._real

    async def first_model(self) -> str:
        if self.replay:
            return "replay"
        from loki_desktop.core.agent import NoModel

        models = await self._backend().list_models()
        if not models:
            raise NoModel(_("Aucun modèle sur le serveur : choisissez-en un avec --model."))
        return str(models[0].name)

    def for_task(self, model: str, task: EvalTask, mode: Harness, url: str) -> ChatBackend:
        from loki_desktop.core.evaluation import replay

        if self.replay in REPLAY_SCRIPTS:
            script: replay.Script = self.replay  # type: ignore[assignment]  # checked above
            return replay.ReplayBackend(
                replay.scripted(task, script, url), model=model, side_calls=True
            )
        if self.replay:
            path = Path(self.replay) / _slug(model) / mode / f"{task.id}.json"
            return replay.ReplayBackend(replay.load_recording(path), model=model)
        if self.record is not None:
            recorder = replay.RecordingBackend(self._backend())
            self._recorders[(model, mode, task.id)] = recorder
            return recorder
        backend: ChatBackend = self._backend()
        return backend

    def save(self, result: TaskResult) -> None:
        from loki_desktop.core.evaluation.replay import save_recording

        recorder = self._recorders.pop((result.model, result.harness, result.task), None)
        if recorder is not None and self.record is not None:
            path = self.record / _slug(result.model) / result.harness / f"{result.task}.json"
            save_recording(path, recorder.replies)

    async def close(self) -> None:
        if self._real is not None:
            await self._real.close()


def _print_task(result: TaskResult, as_json: bool, done: int, total: int) -> None:
    if as_json:
        print(json.dumps(result.to_json(), ensure_ascii=False), flush=True)
        return
    from loki_desktop.core.evaluation.report import end_label

    mark = "✓" if result.passed else "✗"
    reasons = [v.reason for v in result.verdicts if not v.passed]
    reasons += [result.error] if result.error else []
    why = "" if result.passed else " — " + "; ".join(reasons)
    line = _(
        "({model}, harnais {harness}, {seconds} s ; {end}, {calls} appels d'outils, "
        "{tokens} jetons produits)"
    ).format(
        model=result.model,
        harness=result.harness,
        seconds=f"{result.seconds:.1f}",
        end=end_label(result.end),
        calls=result.tool_calls,
        tokens=result.answer_tokens,
    )
    print(
        f"[{done}/{total}] {mark} {result.task} {line}{why}",
        file=sys.stderr,
        flush=True,
    )


def _slug(model: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in model)
