"""A model download in the window: a progress bar with bytes, speed and time left, and Cancel.

The pull runs in a task this panel owns, through the runtime (widgets never talk to Ollama);
the runtime gives at most ten progress values a second, so a 2 GB pull's thousands of
lines cost ten repaints a second. While a pull runs its name is kept in the settings
(`ui.pending_pull`): a pull that Loki's exit interrupted is offered again at the next
start, and Ollama resumes it where it stopped. A pull the person cancels is forgotten.
"""

from __future__ import annotations

import asyncio
import contextlib

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QProgressBar, QVBoxLayout, QWidget

from loki_desktop.core.i18n import _
from loki_desktop.core.llm.pull import PullProgress, describe
from loki_desktop.core.ports import BackendError
from loki_desktop.ui.qt_helpers import OwnedTasks, button, label
from loki_desktop.ui.runtime import Runtime

PENDING_KEY = "pending_pull"


class PullPanel(QFrame):
    """Shows one pull at a time. Signals say how it ended."""

    finished = Signal(str)  # the model is installed
    failed = Signal(str, str)  # model, one sentence
    cancelled = Signal(str)

    def __init__(self, runtime: Runtime, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("PullPanel")
        self.runtime = runtime
        self.tasks = OwnedTasks()
        self.model = ""
        self._task: asyncio.Task[None] | None = None
        self.repaints = 0  # progress values shown (the throttle is what keeps it low)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        self.title = label("", "CardTitle")
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)  # busy until the size is known
        self.bar.setTextVisible(False)
        self.detail = label("", "Muted", wrap=True)
        row = QHBoxLayout()
        row.addWidget(self.bar, 1)
        self.cancel_button = button(_("Annuler"))
        self.cancel_button.setAccessibleName(_("Annuler le téléchargement"))
        self.cancel_button.clicked.connect(self.cancel)
        row.addWidget(self.cancel_button)
        # offered at start when the last run quit in the middle of a pull
        self.resume_button = button(_("Reprendre"), primary=True)
        self.resume_button.clicked.connect(lambda: self.start(self.model))
        self.forget_button = button(_("Oublier"), flat=True)
        self.forget_button.clicked.connect(self._forget)
        row.addWidget(self.resume_button)
        row.addWidget(self.forget_button)
        self.close_button = button(_("Fermer"), flat=True)
        self.close_button.clicked.connect(self.hide)
        row.addWidget(self.close_button)
        layout.addWidget(self.title)
        layout.addLayout(row)
        layout.addWidget(self.detail)
        self.hide()

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self, model: str) -> asyncio.Task[None]:
        """Pull `model`; a pull already running is cancelled first."""
        if self.running:
            self.cancel()
        self.model = model
        self.title.setText(_("Téléchargement de « {model} »").format(model=model))
        self.detail.setText(_("Connexion à Ollama…"))
        self.bar.setRange(0, 0)
        self.cancel_button.setEnabled(True)
        self._offering(False)
        self.show()
        self._remember(model)
        self._task = self.tasks.spawn(self._run(model))
        return self._task

    def offer_resume(self, model: str) -> None:
        """The last run quit while `model` was downloading: offer to go on."""
        self.model = model
        self.title.setText(_("Téléchargement interrompu : « {model} »").format(model=model))
        self.detail.setText(
            _("Loki a été fermé pendant le téléchargement. Ollama reprendra où il en était.")
        )
        self.bar.setRange(0, 1)
        self.bar.setValue(0)
        self._offering(True)
        self.show()

    def _offering(self, offering: bool) -> None:
        self.close_button.hide()
        self.cancel_button.setVisible(not offering)
        self.resume_button.setVisible(offering)
        self.forget_button.setVisible(offering)

    def _ended(self) -> None:
        """Nothing runs any more: Cancel gives way to Close."""
        self.cancel_button.hide()
        self.close_button.show()

    def _forget(self) -> None:
        self._remember("")
        self.hide()

    def cancel(self) -> None:
        if not self.running:
            return
        assert self._task is not None
        self._task.cancel()
        self._remember("")
        self.detail.setText(
            _("Annulé. Ollama garde ce qui est téléchargé : relancer reprendra ici.")
        )
        self._ended()
        self.cancelled.emit(self.model)

    async def _run(self, model: str) -> None:
        progress = PullProgress("")
        try:
            async with contextlib.aclosing(self.runtime.pull_model(model)) as stream:
                async for progress in stream:
                    self.show_progress(progress)
        except BackendError as exc:
            self._remember("")
            self._ended()
            self.detail.setText(str(exc))
            self.failed.emit(model, str(exc))
            return
        self._remember("")
        self._ended()
        if progress.finished:
            self.detail.setText(_("« {model} » est prêt.").format(model=model))
            self.finished.emit(model)
        else:
            message = _("Ollama a fini sans dire que le téléchargement avait réussi.")
            self.detail.setText(message)
            self.failed.emit(model, message)

    def show_progress(self, progress: PullProgress) -> None:
        self.repaints += 1
        fraction = progress.fraction
        if fraction is None:
            self.bar.setRange(0, 0)
        else:
            self.bar.setRange(0, 1000)
            self.bar.setValue(int(fraction * 1000))
        self.detail.setText(describe(progress))

    def _remember(self, model: str) -> None:
        """Keep the running pull's name (or forget it) so an exit mid-pull is offered again."""
        ui = self.runtime.settings.ui
        if ui.get(PENDING_KEY, "") == model:
            return
        if model:
            ui[PENDING_KEY] = model
        else:
            ui.pop(PENDING_KEY, None)
        self.runtime.save_settings()

    async def aclose(self) -> None:
        """At exit: stop the pull but keep its name, so the next start offers it again."""
        await self.tasks.cancel_all()
