"""Réglages → Intelligence → "Évaluer ce modèle": the bundled suite on the current model,
harness on and off, with progress, Stop, and the last results (the same files as `eval`)."""

from __future__ import annotations

import asyncio
import contextlib

from PySide6.QtWidgets import QFrame, QHBoxLayout, QVBoxLayout, QWidget

from loki_desktop.core.evaluation.report import keep_results, load_last
from loki_desktop.core.evaluation.runner import Runner, TaskResult
from loki_desktop.core.evaluation.suite_basic import basic_suite
from loki_desktop.core.i18n import _
from loki_desktop.core.ports import BackendError
from loki_desktop.ui.qt_helpers import OwnedTasks, button, label
from loki_desktop.ui.runtime import Runtime


class EvaluationPanel(QFrame):
    def __init__(self, runtime: Runtime, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setProperty("card", True)
        self.runtime = runtime
        self.tasks = OwnedTasks()
        self._task: asyncio.Task[None] | None = None
        self.results: list[TaskResult] = []
        self.suite = basic_suite()  # a test may give a shorter one
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        top = QHBoxLayout()
        top.addWidget(label(_("Évaluer ce modèle"), "CardTitle"))
        top.addStretch(1)
        self.run_button = button(_("Évaluer ce modèle"))
        self.run_button.clicked.connect(self.toggle)
        top.addWidget(self.run_button)
        layout.addLayout(top)
        layout.addWidget(
            label(
                _(
                    "40 petites tâches (fichiers, bugs, pages web, données, outil Fetch), "
                    "avec puis sans le harnais de Loki. Plusieurs minutes sur un modèle local."
                ),
                "CardDetail",
                wrap=True,
            )
        )
        self.progress = label("", "CardDetail", wrap=True)
        self.progress.hide()  # no empty line before the first run
        layout.addWidget(self.progress)
        self.last = label("", "CardDetail", wrap=True)
        layout.addWidget(self.last)
        self.show_last()

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def show_last(self) -> None:
        rows = load_last(self.runtime.services.data_home / "eval")
        if not rows:
            self.last.setText(_("Pas encore d'évaluation."))
            return
        lines = [
            _("Harnais {harness} : {passed}/{total} réussies ({model})").format(
                harness=row.get("harness"),
                passed=row.get("passed"),
                total=row.get("total"),
                model=row.get("model"),
            )
            for row in rows
        ]
        self.last.setText(_("Dernière évaluation :") + "\n" + "\n".join(lines))

    def toggle(self) -> None:
        self.progress.show()
        if self.running:
            assert self._task is not None
            self._task.cancel()
            self.progress.setText(_("Arrêtée : rien n'est gardé d'une évaluation partielle."))
            self.run_button.setText(_("Évaluer ce modèle"))
            return
        self.run_button.setText(_("Arrêter"))
        self.progress.setText(_("Démarrage…"))
        self._task = self.tasks.spawn(self._evaluate())

    async def _evaluate(self) -> None:
        runtime = self.runtime
        self.results = []
        tasks = self.suite
        total = 2 * len(tasks)
        try:
            model = runtime.settings.model or await self._first_model()
            open_at = runtime.services.open_history_at
            assert open_at is not None
            runner = Runner(
                lambda *_args: runtime.backend, open_at, runtime.services.secrets, runtime.settings
            )
            async with contextlib.aclosing(runner.run([model], ["on", "off"], tasks)) as results:
                async for result in results:
                    self.results.append(result)
                    mark = "✓" if result.passed else "✗"
                    self.progress.setText(
                        f"{len(self.results)}/{total} — {mark} {result.task} "
                        + _("(harnais {harness})").format(harness=result.harness)
                    )
            keep_results(runtime.services.data_home / "eval", self.results)
            self.progress.setText(_("Terminé."))
            self.show_last()
        except BackendError as exc:
            self.progress.setText(str(exc))
        finally:
            if asyncio.current_task() is self._task:  # not an older, stopped run
                self.run_button.setText(_("Évaluer ce modèle"))

    async def _first_model(self) -> str:
        models = await self.runtime.list_models()
        if not models:
            raise BackendError(_("Aucun modèle sur le serveur."))
        return models[0].name
