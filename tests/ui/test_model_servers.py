"""Several model servers in the window: Réglages → Général adds an OpenAI-compatible one with
its key in the keyring, the picker groups models by server, a model remembers its server."""

from __future__ import annotations

import json
from typing import Any

import keyring

from loki_desktop.core.model_servers import ModelServer, key_name, save_servers
from loki_desktop.core.services import Services
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.openai_server import FakeOpenAI
from tests.ui.helpers import open_window, wait_until

VLLM_MODEL = "Qwen/Qwen2.5-Coder-32B-Instruct"


async def test_add_an_openai_server_with_a_key_then_pick_its_model(
    ollama: FakeOllama, services: Services, qtbot: Any, loki_home: Any
) -> None:
    with FakeOpenAI(models=(VLLM_MODEL,), api_key="sk-labo") as vllm:
        async with open_window(services, qtbot, ollama.url) as window:
            dialog = window.settings_opener.open()
            editor = dialog.general.servers
            assert editor.list.count() == 1  # the single Ollama host, migrated
            assert editor.host.text() == ollama.url
            editor.add_button.click()
            editor.name.setText("Labo")
            editor.kind.setCurrentIndex(editor.kind.findData("openai"))
            editor.host.setText(vllm.url)
            editor.key.setText("sk-labo")
            editor.test_button.click()
            await wait_until(lambda: "Connecté" in editor.test_result.text())
            assert VLLM_MODEL in editor.test_result.text()
            dialog.save_button.click()
            await dialog.tasks.cancel_all()

            saved = services.settings.load()
            assert [s["name"] for s in saved.model_servers] == ["Ollama", "Labo"]
            assert saved.host == ollama.url  # an older Loki still finds its Ollama
            text = (loki_home / "settings.json").read_text()
            assert "sk-labo" not in text  # the key is in the keyring only
            assert keyring.get_password("loki-desktop", key_name("Labo")) == "sk-labo"

            # the default model chosen after the test is the tested server's: its server
            assert (saved.model, saved.model_server) == (VLLM_MODEL, "Labo")
            assert window.runtime.server.name == "Labo"
            assert window.runtime.host == vllm.url

            # the picker lists both servers' models under their names
            window.server_status.check()
            picker = window.model_picker
            await wait_until(
                lambda: picker.models_of("Ollama") == ["qwen2.5-coder:7b", "llama3.1:8b"]
            )
            assert picker.models_of("Labo") == [VLLM_MODEL]
            assert picker.current_model() == VLLM_MODEL
            picker.setCurrentIndex(picker.findText("llama3.1:8b"))
            await wait_until(lambda: window.runtime.server.name == "Ollama")
            assert window.runtime.host == ollama.url
            saved = services.settings.load()
            assert (saved.model, saved.model_server) == ("llama3.1:8b", "Ollama")
            await wait_until(lambda: picker.models_of("Labo") == [VLLM_MODEL])
            assert picker.current_model() == "llama3.1:8b"
        # the window's requests to vLLM carried the key from the keyring
        assert {h.get("Authorization") for h in vllm.headers} == {"Bearer sk-labo"}
    data = json.loads((loki_home / "settings.json").read_text())
    assert data["model_server"] == "Ollama"


async def test_a_bad_address_is_refused_before_saving(
    ollama: FakeOllama, services: Services, qtbot: Any
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        dialog = window.settings_opener.open()
        editor = dialog.general.servers
        editor.add_button.click()
        editor.host.setText("pas une adresse")
        dialog.save_button.click()
        assert "n'est pas une adresse" in editor.test_result.text()
        assert dialog.isVisible()
        assert services.settings.load().model_servers == []
        dialog.reject()
        await dialog.tasks.cancel_all()


async def test_an_openai_model_is_of_unknown_capabilities_and_takes_images_once_accepted(
    services: Services, qtbot: Any
) -> None:
    with FakeOpenAI(models=("texte", "yeux"), vision_models=("yeux",)) as vllm:
        settings = services.settings.load()
        save_servers(settings, [ModelServer("openai", "Labo", vllm.url)])
        settings.model_server, settings.model = "Labo", "texte"
        services.settings.save(settings)
        async with open_window(services, qtbot) as window:
            attach = window.composer.attach_button
            # not assumed: unknown, and no image until the server took one
            await wait_until(lambda: "n'a pas accepté" in attach.toolTip(), what="the answer")
            assert window.model_marks.marks == ["CAPACITÉS INCONNUES"]
            images = window.composer.attachments
            assert images.refusal  # files attach, images do not (issue 32: files need no vision)
            picker = window.model_picker
            picker.setCurrentIndex(picker.findData("yeux"))
            await wait_until(lambda: not images.refusal, what="the server took an image")
            assert window.model_marks.marks == ["CAPACITÉS INCONNUES", "VISION"]
            probes = [r for r in vllm.requests if r[2] and r[2].get("max_tokens") == 1]
            assert [p[2]["model"] for p in probes] == ["texte", "yeux"]  # once each
