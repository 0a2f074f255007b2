"""Getting a model from the window: the first-run choice, the progress bar, cancel, resume."""

from __future__ import annotations

import threading
import time
from typing import Any

from PySide6.QtCore import Qt

from loki_desktop.core.services import Services
from loki_desktop.ui.models.download import PENDING_KEY
from tests.fakes.ollama_server import FakeOllama
from tests.ui.helpers import open_window, wait_until


async def test_first_run_offers_models_and_a_click_pulls_and_selects_one(
    services: Services, qtbot: Any
) -> None:
    with FakeOllama(models=()) as server:
        server.pull.steps = 2000  # thousands of lines, as a multi-gigabyte pull sends
        async with open_window(services, qtbot, server.url) as window:
            first = window.downloads.first_model
            await wait_until(first.isVisible, what="the first-model choice is shown")
            assert "Go de mémoire" in first.machine_text.text()
            name = "qwen3:8b"
            assert name in first.pull_buttons  # 24 GB here: the recommended one fits
            started = time.monotonic()
            qtbot.mouseClick(first.pull_buttons[name], Qt.MouseButton.LeftButton)
            panel = window.downloads.panel
            assert panel.isVisible()
            assert not first.pull_buttons[name].isEnabled()  # one pull at a time
            await wait_until(lambda: window.runtime.settings.model == name, 30)
            elapsed = time.monotonic() - started
            await wait_until(lambda: window.model_picker.current_model() == name)
            assert not first.isVisible()
            assert window.composer.input.hasFocus()
            assert panel.bar.value() == panel.bar.maximum()
            assert "est prêt" in panel.detail.text()
            # at most ten repaints a second, plus one per status change
            assert panel.repaints <= 10 * elapsed + 8
            assert server.pull.lines_sent >= 6000
            assert PENDING_KEY not in services.settings.load().ui


async def test_cancel_stops_the_pull_and_a_new_pull_resumes(services: Services, qtbot: Any) -> None:
    with FakeOllama(models=()) as server:
        gate = threading.Event()
        server.pull.pause_after, server.pull.gate = 10, gate
        try:
            async with open_window(services, qtbot, server.url) as window:
                panel = window.downloads.panel
                window.downloads.start("qwen3:8b")
                await wait_until(lambda: panel.bar.value() > 0, what="progress shown")
                assert services.settings.load().ui[PENDING_KEY] == "qwen3:8b"
                qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)
                await wait_until(lambda: not panel.running)
                assert "Annulé" in panel.detail.text()
                assert PENDING_KEY not in services.settings.load().ui
                kept = dict(server.pull.partial)
                assert sum(kept.values()) > 0
                gate.set()
                server.pull.pause_after = None
                window.downloads.start("qwen3:8b")
                await wait_until(lambda: window.runtime.settings.model == "qwen3:8b", 30)
                assert "qwen3:8b" in server.models
        finally:
            gate.set()


async def test_a_pull_cut_by_quitting_is_offered_at_the_next_start(
    services: Services, qtbot: Any
) -> None:
    with FakeOllama(models=()) as server:
        gate = threading.Event()
        server.pull.pause_after, server.pull.gate = 5, gate
        try:
            async with open_window(services, qtbot, server.url) as window:
                window.downloads.start("qwen3:8b")
                await wait_until(lambda: window.downloads.panel.bar.value() > 0)
            # the window closed mid-pull: its name is kept
            assert services.settings.load().ui[PENDING_KEY] == "qwen3:8b"
        finally:
            gate.set()
        server.pull.pause_after = None
        async with open_window(services, qtbot, server.url) as window:
            panel = window.downloads.panel
            assert panel.isVisible()
            assert "interrompu" in panel.title.text()
            assert panel.resume_button.isVisible()
            qtbot.mouseClick(panel.resume_button, Qt.MouseButton.LeftButton)
            await wait_until(lambda: window.runtime.settings.model == "qwen3:8b", 30)
            assert PENDING_KEY not in services.settings.load().ui


async def test_a_failed_pull_says_why(services: Services, qtbot: Any) -> None:
    with FakeOllama(models=()) as server:
        async with open_window(services, qtbot, server.url) as window:
            first = window.downloads.first_model
            await wait_until(first.isVisible)
            first.name_field.setText("nope:1b")
            first.name_field.returnPressed.emit()
            panel = window.downloads.panel
            await wait_until(lambda: "n'existe pas" in panel.detail.text())
            assert first.pull_buttons["qwen3:8b"].isEnabled()
            first.name_field.setText("pas un nom")
            first.name_field.returnPressed.emit()
            assert "n'est pas un nom de modèle" in first.error.text()
