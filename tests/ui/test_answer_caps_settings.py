"""Réglages → Général: an answer's length and time caps, saved for every model's turns."""

from __future__ import annotations

from typing import Any

from loki_desktop.core.services import Services
from tests.fakes.ollama_server import FakeOllama
from tests.ui.helpers import open_window


async def test_the_caps_set_in_the_window_are_saved(
    ollama: FakeOllama, services: Services, qtbot: Any
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        dialog = window.settings_opener.open()
        caps = dialog.general.answer_caps
        assert (caps.max_tokens.value(), caps.timeout.value()) == (8192, 1800)
        caps.max_tokens.setValue(512)
        caps.timeout.setValue(0)
        assert caps.timeout.text() == "sans limite"
        dialog.save_button.click()
        await dialog.tasks.cancel_all()
    saved = services.settings.load()
    assert (saved.answer_max_tokens, saved.answer_timeout_s) == (512, 0)
