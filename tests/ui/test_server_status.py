"""The model server's state without a window: the picker filled, the banner, the recheck."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from PySide6.QtWidgets import QWidget

from loki_desktop.core.ports import ModelProfile
from loki_desktop.core.services import Services
from loki_desktop.ui.chat.composer import Composer
from loki_desktop.ui.chat.welcome import WelcomePage
from loki_desktop.ui.models.downloads import ModelDownloads
from loki_desktop.ui.models.marks import MarksRow
from loki_desktop.ui.qt_helpers import OwnedTasks
from loki_desktop.ui.window.backend_status import ModelPicker
from loki_desktop.ui.window.server_status import ServerStatus, vision_refusal
from loki_desktop.ui.window.turn_errors import Banner
from tests.fakes.ollama_server import FakeOllama, ModelCard
from tests.ui.helpers import open_runtime


@contextlib.asynccontextmanager
async def open_status(services: Services, qtbot: Any, host: str) -> AsyncIterator[ServerStatus]:
    async with open_runtime(services, host) as runtime:
        parent = QWidget()
        qtbot.addWidget(parent)
        tasks = OwnedTasks()
        downloads = ModelDownloads(runtime, WelcomePage(parent), parent)
        status = ServerStatus(
            runtime, tasks, Banner(), ModelPicker(), MarksRow(), Composer(), downloads, parent
        )
        try:
            yield status
        finally:
            status.recheck.stop()
            await tasks.cancel_all()
            await downloads.panel.aclose()
            for widget in (status.banner, status.picker, status.marks, status.composer):
                widget.deleteLater()


def listed(picker: ModelPicker) -> list[str]:
    return [picker.itemText(i) for i in range(picker.count())]


async def test_the_server_models_fill_the_picker_and_the_choice_is_saved(
    services: Services, qtbot: Any
) -> None:
    cards = {"llava:7b": ModelCard.no_tools("vision")}
    with FakeOllama(models=("qwen2.5-coder:7b",), cards=cards) as ollama:
        async with open_status(services, qtbot, ollama.url) as status:
            status.runtime.settings.model = "qwen2.5-coder:7b"
            await status.check()
            assert listed(status.picker) == ["qwen2.5-coder:7b", "llava:7b"]
            assert status.server_models == ["qwen2.5-coder:7b", "llava:7b"]
            assert status.banner.isHidden()
            assert not status.recheck.isActive()
            assert status.composer.attachments.refusal  # no vision: no images (files: yes)

            status.picker.setCurrentIndex(status.picker.findData("llava:7b"))  # the person
            assert status.runtime.settings.model == "llava:7b"
            assert services.settings.load().model == "llava:7b"  # saved
            assert not status.composer.attachments.refusal
            assert "VISION" in status.marks.marks


async def test_an_unreachable_server_is_said_and_asked_again_until_it_answers(
    services: Services, qtbot: Any, offline_host: str, ollama: FakeOllama
) -> None:
    async with open_status(services, qtbot, offline_host) as status:
        status.runtime.settings.model = "qwen2.5-coder:7b"
        await status.check()
        assert status.banner.problem == "unreachable"
        assert offline_host in status.banner.title.text()
        assert status.recheck.isActive()  # looked at again in RECHECK_MS
        assert status.picker.itemText(0) == "qwen2.5-coder:7b"  # kept, not swapped

        status.runtime.set_host(ollama.url)  # it came back (here: elsewhere)
        await status.check()
        assert status.banner.problem == ""
        assert status.banner.title.text() == f"Connecté à {ollama.url}"
        assert not status.recheck.isActive()
        assert listed(status.picker) == ["qwen2.5-coder:7b", "llama3.1:8b"]


async def test_a_server_without_chat_models_offers_the_first_download(
    services: Services, qtbot: Any
) -> None:
    with FakeOllama(models=(), cards={"nomic-embed-text": ModelCard.embedding()}) as ollama:
        async with open_status(services, qtbot, ollama.url) as status:
            await status.check()
            assert status.server_models == []  # an embedding model cannot chat
            assert status.banner.problem == "no_model"
            assert status.recheck.isActive()  # a model pulled from a terminal shows up
            assert not status.downloads.first_model.isHidden()  # the first-run choice


def test_images_are_refused_with_the_reason() -> None:
    seeing = ModelProfile(name="llava", capabilities=frozenset({"completion", "vision"}))
    blind = ModelProfile(name="qwen", capabilities=frozenset({"completion", "tools"}))
    assert vision_refusal("llava", seeing) == ""
    assert "VISION" in vision_refusal("", None)
    assert "ne sait pas encore" in vision_refusal("qwen", None)
    assert "ne lit pas les images" in vision_refusal("qwen", blind)
    # the server's vision models are offered first, never the current model's family
    said = vision_refusal("gemma3:1b", blind, ["gemma3:4b", "llava:7b"])
    assert "(llava:7b, qwen2.5vl, llama3.2-vision…)" in said
    assert "gemma3," not in said
