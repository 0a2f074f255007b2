"""Réglages → Général: an OpenAI-compatible server's instructions setting (system message or
folded into the first message) and the button that checks whether its model follows them."""

from __future__ import annotations

from typing import Any

from loki_desktop.core.services import Services
from tests.fakes.instructed import drops_the_system_message, obeys_what_reaches_it
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.openai_server import FakeOpenAI
from tests.ui.helpers import open_window, wait_until


def _add_server(editor: Any, url: str) -> None:
    editor.add_button.click()
    editor.name.setText("llama.cpp")
    editor.kind.setCurrentIndex(editor.kind.findData("openai"))
    editor.host.setText(url)


async def test_the_check_finds_a_dropped_system_message_and_the_fold_is_saved(
    ollama: FakeOllama, services: Services, qtbot: Any
) -> None:
    with FakeOpenAI(models=("smollm2",)) as server:
        server.script(drops_the_system_message)
        async with open_window(services, qtbot, ollama.url) as window:
            dialog = window.settings_opener.open()
            editor = dialog.general.servers
            assert not editor.placement.isEnabled()  # Ollama: its templates are read
            _add_server(editor, server.url)
            assert editor.placement.isEnabled()
            editor.check_button.click()
            await wait_until(lambda: "consigne système" in editor.test_result.text())
            assert "n'a pas suivi" in editor.test_result.text()
            assert editor.test_result.property("state") == "error"
            editor.placement.setCurrentIndex(editor.placement.findData("folded"))
            dialog.save_button.click()
            await dialog.tasks.cancel_all()
    saved = services.settings.load()
    entry = next(s for s in saved.model_servers if s["name"] == "llama.cpp")
    assert entry["system"] == "folded"
    (request,) = server.chat_requests
    assert request["messages"][0]["role"] == "system"  # the check sends a real system message


async def test_the_check_says_when_the_model_follows_its_instructions(
    ollama: FakeOllama, services: Services, qtbot: Any
) -> None:
    with FakeOpenAI(models=("smollm2",)) as server:
        server.script(obeys_what_reaches_it)
        async with open_window(services, qtbot, ollama.url) as window:
            dialog = window.settings_opener.open()
            editor = dialog.general.servers
            _add_server(editor, server.url)
            editor.check_button.click()
            await wait_until(lambda: "suit une consigne" in editor.test_result.text())
            assert editor.test_result.property("state") == "ok"
            await dialog.tasks.cancel_all()
