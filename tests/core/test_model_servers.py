"""The model servers of the settings: the single Ollama host migrated, entries checked one by
one, the CLI's choice from --api/--host and the OpenAI environment variables."""

from __future__ import annotations

from pathlib import Path

from loki_desktop.core.model_servers import (
    ModelServer,
    cli_server,
    current_server,
    save_servers,
    servers,
)
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.settings_file import SettingsFile


def test_an_old_settings_file_gives_one_ollama_server_at_its_host() -> None:
    listed = servers(Settings(host="http://gpu-box:11434"))
    assert listed == [ModelServer("ollama", "Ollama", "http://gpu-box:11434")]


def test_bad_entries_are_skipped_and_the_others_kept() -> None:
    settings = Settings(
        model_servers=[
            {"kind": "openai", "name": "Labo", "url": "http://box:8000/v1/"},
            {"kind": "grpc", "name": "X", "url": "http://x"},
            {"kind": "openai", "name": "", "url": "http://y"},
            {"kind": "openai", "name": "Z", "url": "pas une adresse"},
            "nonsense",
            {"kind": "openai", "name": "Labo", "url": "http://dup/v1"},
        ]
    )
    assert servers(settings) == [ModelServer("openai", "Labo", "http://box:8000/v1")]


def test_the_selected_server_is_remembered_and_saving_keeps_host(tmp_path: Path) -> None:
    settings = Settings()
    listed = [
        ModelServer("ollama", "Ollama", "http://127.0.0.1:11434"),
        ModelServer("openai", "Labo", "http://box:8000/v1", {"m": 4096}, has_key=True),
    ]
    save_servers(settings, listed)
    settings.model_server = "Labo"
    store = SettingsFile(tmp_path / "settings.json")
    store.save(settings)
    loaded = store.load()
    assert store.take_notices() == []
    assert servers(loaded) == listed
    assert current_server(loaded).name == "Labo"
    assert loaded.host == "http://127.0.0.1:11434"


def test_cli_choice_from_flags_and_environment() -> None:
    settings = Settings(
        model_servers=[
            {"kind": "ollama", "name": "Ollama", "url": "http://127.0.0.1:11434"},
            {"kind": "openai", "name": "Labo", "url": "http://box:8000/v1"},
        ],
        model_server="Labo",
    )
    assert cli_server(None, None, settings, {}).name == "Labo"
    assert cli_server("openai", None, settings, {}).url == "http://box:8000/v1"
    env = {"OPENAI_BASE_URL": "http://other:9000/v1/"}
    assert cli_server("openai", None, settings, env) == ModelServer(
        "openai", "", "http://other:9000/v1"
    )
    assert cli_server("openai", "http://box:8000/v1", settings, env).name == "Labo"
    assert cli_server(None, "http://x:11434", settings, {}).kind == "ollama"
    assert cli_server("ollama", None, Settings(), {}).url == "http://127.0.0.1:11434"
