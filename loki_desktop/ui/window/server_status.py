"""The model server as the window shows it: its models in the picker, its problems in the banner."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from PySide6.QtCore import QObject, QTimer

from loki_desktop.core.i18n import _
from loki_desktop.core.llm.mode import vision_suggestions
from loki_desktop.core.ports import BackendError, BackendUnreachable, ModelProfile
from loki_desktop.ui.chat.composer import Composer
from loki_desktop.ui.models.downloads import ModelDownloads
from loki_desktop.ui.models.marks import MarksRow
from loki_desktop.ui.qt_helpers import OwnedTasks
from loki_desktop.ui.runtime import OllamaNoAnswer, Runtime
from loki_desktop.ui.window.backend_status import ModelPicker
from loki_desktop.ui.window.turn_errors import Banner

RECHECK_MS = 10_000  # while Ollama is unreachable, look again this often


def vision_refusal(
    model: str, profile: ModelProfile | None, installed_vision: Sequence[str] = ()
) -> str:
    """Why images cannot be attached for `model` ("" when they can); `installed_vision`, the
    server's models that read images, are offered first."""
    if profile is not None and profile.vision:
        return ""
    if not model:
        return _("Choisissez d'abord un modèle qui lit les images (marque VISION).")
    if profile is None:
        return _(
            "Loki ne sait pas encore si « {model} » lit les images : le serveur n'a pas répondu."
        ).format(model=model)
    if not profile.known:
        return _(
            "Le serveur n'a pas accepté d'image pour « {model} » : choisissez un modèle qui lit "
            "les images pour en joindre."
        ).format(model=model)
    return _(
        "« {model} » ne lit pas les images. Choisissez un modèle marqué VISION "
        "({models}…) pour en joindre."
    ).format(model=model, models=", ".join(vision_suggestions(model, installed_vision)))


class ServerStatus(QObject):
    """Asks the server for its models (one check at a time, again every RECHECK_MS while it
    is away or has no model), fills the picker, says what is wrong, follows the choice."""

    def __init__(
        self,
        runtime: Runtime,
        tasks: OwnedTasks,
        banner: Banner,
        picker: ModelPicker,
        marks: MarksRow,
        composer: Composer,
        downloads: ModelDownloads,
        parent: QObject,
    ) -> None:
        super().__init__(parent)
        self.runtime = runtime
        self.tasks = tasks
        # (host, model) whose server was asked whether the model reads images
        self._asked_images: set[tuple[str, str]] = set()
        self.banner = banner
        self.picker = picker
        self.marks = marks
        self.composer = composer
        self.downloads = downloads
        self.server_models: list[str] = []  # the current server's chat models
        # the other servers' models (or why not), grouped in the picker; empty with one server
        self.others: list[tuple[str, list[str] | str]] = []
        self._check: asyncio.Task[None] | None = None  # the model list being asked for
        self.recheck = QTimer(self)
        self.recheck.setSingleShot(True)
        self.recheck.setInterval(RECHECK_MS)
        self.recheck.timeout.connect(self.check)
        picker.model_chosen.connect(self.choose_model)

    def show_saved_model(self) -> None:
        """Before the server answers: the saved model, nothing known about it."""
        model = self.runtime.settings.model
        self.picker.set_models([], model)
        self.composer.set_vision(vision_refusal(model, None))

    def check(self) -> asyncio.Task[None]:
        """Ask the server for its models. One check at a time: a check still running is
        cancelled, so its late answer (about an older host) cannot overwrite this one's."""
        if self._check is not None and not self._check.done():
            self._check.cancel()
        self._check = self.tasks.spawn(self._refresh())
        return self._check

    async def _refresh(self) -> None:
        """Fill the picker from the server, or say what is wrong."""
        self.recheck.stop()
        self.banner.set_checking(True)
        host, model = self.runtime.host, self.runtime.settings.model  # as asked
        # the other servers are asked meanwhile: the picker groups every server's models
        others_task = asyncio.ensure_future(self.runtime.other_servers_models())
        try:
            models = await self.runtime.list_models()
            self.others = await others_task
        except BackendError as exc:
            if isinstance(exc, BackendUnreachable):
                self.others = await others_task
            self._failed(exc, host, model)
            return
        finally:
            if not others_task.done():  # cancelled, or the current server failed first
                others_task.cancel()
            if self._check is asyncio.current_task():  # not a check replaced by a newer one
                self.banner.set_checking(False)
        profiles = await self.runtime.model_profiles([info.name for info in models])
        # embedding-only models cannot chat: they are not offered
        self.server_models = [name for name, p in profiles.items() if p.for_chat]
        if self.server_models:
            self.downloads.models_present()
            self._fill_picker(self.server_models, model, profiles)
            self.show_model_state()
            return
        self._fill_picker([], model)
        self.recheck.start()  # a model pulled from a terminal shows up by itself
        if self.runtime.server.kind != "ollama":  # nothing to download through its API
            self.banner.show_server_problem(
                host, _("Le serveur répond, mais ne sert aucun modèle de conversation.")
            )
            return
        self.banner.show_no_model(host)
        await self.downloads.offer_first_model()

    def _failed(self, exc: BackendError, host: str, model: str) -> None:
        """The banner says why the server gave no list; it is asked again later."""
        ollama = self.runtime.server.kind == "ollama"
        if isinstance(exc, BackendUnreachable):
            if ollama:
                self.banner.show_unreachable(host)
            else:
                self.banner.show_server_problem(host, str(exc))
            self._fill_picker([], model)
        elif isinstance(exc, OllamaNoAnswer):
            self.banner.show_no_answer(host, str(exc))
        elif ollama:
            self.banner.show_error(host, str(exc))
        else:
            self.banner.show_server_problem(host, str(exc))
        self.recheck.start()

    def _fill_picker(
        self, names: list[str], model: str, profiles: dict[str, ModelProfile] | None = None
    ) -> None:
        """The picker: the current server's models, grouped with the others' when there
        are several servers."""
        server = self.runtime.server.name if self.others else ""
        self.picker.set_models(names, model, profiles, server=server, others=self.others)

    def choose_model(self, name: str) -> None:
        settings = self.runtime.settings  # the runtime's settings: every agent reads them
        settings.model = name
        server = self.picker.current_server()
        if server and server != self.runtime.server.name:
            # another server's model: its server becomes the current one (remembered)
            settings.model_server = server
            self.runtime.apply_servers()
            self.runtime.save_settings()
            self.check()
            return
        if server:
            settings.model_server = server
        self.runtime.save_settings()
        self.show_model_state()

    def show_model_state(self) -> None:
        """The banner says so when the chosen model is not on the server (none is swapped in);
        the header shows the model's marks; the attach button follows its vision."""
        model = self.runtime.settings.model or self.picker.current_model()
        if model and model not in self.server_models:
            self.banner.show_missing_model(self.runtime.host, model)
        else:
            self.banner.clear(self.runtime.host)
        profile = self.runtime.profile_of(model) if model in self.server_models else None
        self.marks.set_profile(profile)
        seeing = [name for name in self.server_models if self._sees(name)]
        self.composer.set_vision(vision_refusal(model, profile, seeing))
        asked = (self.runtime.host, model)
        if profile is not None and not profile.known and asked not in self._asked_images:
            self._asked_images.add(asked)  # a server that does not say: asked once
            asking = _("Loki demande au serveur si « {model} » lit les images…")
            self.composer.set_vision(asking.format(model=model))
            self.tasks.spawn(self._ask_images(model))

    async def _ask_images(self, model: str) -> None:
        await self.runtime.takes_images(model)
        if (self.runtime.settings.model or self.picker.current_model()) == model:
            self.show_model_state()  # its marks and the attach button, with the answer

    def _sees(self, name: str) -> bool:
        profile = self.runtime.profile_of(name)
        return profile is not None and profile.vision
