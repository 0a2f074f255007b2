"""settings.json: readable, written atomically, a corrupt file kept aside with a notice."""

from __future__ import annotations

import json
from pathlib import Path

from loki_desktop.core.settings import Settings, resolve_host
from loki_desktop.persistence.settings_file import SettingsFile


def test_missing_file_gives_defaults(tmp_path: Path) -> None:
    store = SettingsFile(tmp_path / "settings.json")
    assert store.load() == Settings()
    assert store.take_notices() == []


def test_round_trip_is_readable_json(tmp_path: Path) -> None:
    (tmp_path / "conf").mkdir()
    path = tmp_path / "conf" / "settings.json"
    store = SettingsFile(path)
    settings = Settings(
        host="http://gpu:11434",
        model="qwen2.5:14b",
        max_rounds=4,
        mcp_servers={"fetch": {"enabled": True}},
    )
    store.save(settings)
    assert json.loads(path.read_text())["model"] == "qwen2.5:14b"
    assert store.load() == settings
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]  # no temp file left


def test_corrupt_file_is_moved_aside_with_a_notice(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"model": "qwen", oops')
    store = SettingsFile(path)
    assert store.load() == Settings()
    notices = store.take_notices()
    assert len(notices) == 1
    assert "mis de côté" in notices[0]
    assert store.take_notices() == []  # given once
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("settings.corrupt-")]
    assert [p.read_text() for p in kept] == ['{"model": "qwen", oops']
    assert not path.exists()


def test_ill_typed_values_fall_back_to_defaults_with_a_notice(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"max_rounds": True, "model": "m", "unknown": 1}))
    store = SettingsFile(path)
    settings = store.load()
    assert settings.max_rounds == Settings().max_rounds
    assert settings.model == "m"
    assert "max_rounds" in store.take_notices()[0]


def test_host_precedence(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    assert resolve_host(None, Settings()) == "http://127.0.0.1:11434"
    monkeypatch.setenv("OLLAMA_HOST", "0.0.0.0:11434")
    assert resolve_host(None, Settings()) == "http://0.0.0.0:11434"
    assert resolve_host(None, Settings(host="http://s:1")) == "http://s:1"
    assert resolve_host("http://cli:2/", Settings(host="http://s:1")) == "http://cli:2"
