"""The window's model downloads: the first-run choice, the progress panel, and what follows.

Not a widget: it wires the welcome page's FirstModelPanel and the PullPanel, so that a
finished pull selects the model (the window then checks the server and readies the composer).
"""

from __future__ import annotations

import asyncio

from PySide6.QtCore import QObject, Signal

from loki_desktop.core.llm.machine import Machine, read_machine
from loki_desktop.ui.chat.welcome import WelcomePage
from loki_desktop.ui.models.download import PENDING_KEY, PullPanel
from loki_desktop.ui.models.first_model import FirstModelPanel
from loki_desktop.ui.runtime import Runtime


class ModelDownloads(QObject):
    model_ready = Signal()  # a pulled model is now the chosen one (saved)

    def __init__(self, runtime: Runtime, welcome: WelcomePage, parent: QObject) -> None:
        super().__init__(parent)
        self.runtime = runtime
        self.panel = PullPanel(runtime)
        self.first_model = FirstModelPanel()
        welcome.add_panel(self.first_model)
        self.first_model.pull_requested.connect(self.start)
        self.panel.finished.connect(self._pulled)
        for ended in (self.panel.failed, self.panel.cancelled):
            ended.connect(self._pull_ended)
        self._machine: Machine | None = None
        self._offered = False  # the server had no model: the choice is on the welcome page

    def offer_interrupted(self) -> None:
        """At start: a pull the last run's exit interrupted is offered again."""
        model = self.runtime.settings.ui.get(PENDING_KEY)
        if isinstance(model, str) and model:
            self.panel.offer_resume(model)

    async def offer_first_model(self) -> None:
        """The server has no model: propose some that fit this machine (read once)."""
        self._offered = True
        if self._machine is None:
            self._machine = await asyncio.to_thread(read_machine)  # may run nvidia-smi
        if self.panel.running:
            return  # the choice comes back if this pull fails
        if not self.first_model.isVisible():
            self.first_model.show_for(self._machine)

    def models_present(self) -> None:
        """The server has models now: no first-run choice."""
        self._offered = False
        self.first_model.hide()

    def start(self, model: str) -> None:
        # the choice steps aside while a model downloads (it comes back if the pull fails)
        self.first_model.set_busy(True)
        self.first_model.hide()
        self.panel.start(model)

    def _pull_ended(self, *_args: object) -> None:
        self.first_model.set_busy(False)
        if self._offered:
            self.first_model.show()

    def _pulled(self, model: str) -> None:
        """Use the model at once: picked and saved (the window checks and readies the rest)."""
        self.runtime.settings.model = model
        self.runtime.save_settings()
        self.models_present()
        self.model_ready.emit()
