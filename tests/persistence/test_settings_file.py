"""settings.json: readable, written atomically, a corrupt file kept aside with a notice."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from loki_desktop.core.settings import Settings, resolve_host
from loki_desktop.persistence.settings_file import SettingsFile, read_language


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
    # no temp file left (beside it may stay the writers' lock: see test_settings_update.py)
    assert {p.name for p in path.parent.iterdir()} - {"settings.json.lock"} == {"settings.json"}


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


# --- issue 16.1: any bytes, a byte order mark, a type and a range for every setting --------


def _load(tmp_path: Path, raw: bytes) -> tuple[Settings, list[str], SettingsFile]:
    path = tmp_path / "settings.json"
    path.write_bytes(raw)
    store = SettingsFile(path)
    settings = store.load()
    return settings, store.take_notices(), store


def test_a_file_that_is_not_utf8_is_moved_aside_with_a_notice(tmp_path: Path) -> None:
    raw = json.dumps({"model": "caf\u00e9"}, ensure_ascii=False).encode("latin-1")
    settings, notices, _ = _load(tmp_path, raw)
    assert settings == Settings()
    assert len(notices) == 1
    assert "mis de côté" in notices[0]
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("settings.corrupt-")]
    assert [p.read_bytes() for p in kept] == [raw]


def test_random_bytes_are_moved_aside_too(tmp_path: Path) -> None:
    raw = bytes(range(256)) * 4
    settings, notices, _ = _load(tmp_path, raw)
    assert settings == Settings()
    assert "mis de côté" in notices[0]
    assert not (tmp_path / "settings.json").exists()


def test_a_utf8_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    raw = b"\xef\xbb\xbf" + json.dumps({"model": "qwen2.5:14b", "max_rounds": 3}).encode()
    settings, notices, _ = _load(tmp_path, raw)
    assert (settings.model, settings.max_rounds) == ("qwen2.5:14b", 3)
    assert notices == []
    assert (tmp_path / "settings.json").exists()  # not taken for a corrupt file


def test_each_bad_field_is_rejected_alone_and_named(tmp_path: Path) -> None:
    raw = json.dumps(
        {
            "num_ctx": -1,
            "max_rounds": -5,
            "model": "qwen2.5:14b",
            "skills_enabled": "yes",
            "auto_checks": False,
            "recent_workspaces": ["/a", 3],
            "host": "http://[::1",
            "mcp_servers": ["fetch"],
        }
    ).encode()
    settings, notices, _ = _load(tmp_path, raw)
    defaults = Settings()
    assert settings.num_ctx == defaults.num_ctx
    assert settings.max_rounds == defaults.max_rounds
    assert settings.skills_enabled is True
    assert settings.recent_workspaces == []
    assert settings.host == ""
    assert settings.mcp_servers == {}
    # the good ones are kept
    assert settings.model == "qwen2.5:14b"
    assert settings.auto_checks is False
    named = {
        name
        for name in (
            "num_ctx",
            "max_rounds",
            "skills_enabled",
            "recent_workspaces",
            "host",
            "mcp_servers",
        )
        if any(f"« {name} »" in notice for notice in notices)
    }
    assert len(named) == 6
    assert len(notices) == 6  # one notice per field
    num_ctx_notice = next(n for n in notices if "« num_ctx »" in n)
    assert "-1" in num_ctx_notice
    assert "par défaut 0" in num_ctx_notice  # automatic: the model's own context


def test_max_rounds_zero_is_rejected(tmp_path: Path) -> None:
    settings, notices, _ = _load(tmp_path, b'{"max_rounds": 0, "num_ctx": 16384}')
    assert settings.max_rounds == Settings().max_rounds
    assert settings.num_ctx == 16384
    assert len(notices) == 1
    assert "« max_rounds »" in notices[0]


def test_every_number_setting_has_a_range() -> None:
    from dataclasses import fields

    from loki_desktop.core.settings import setting_range

    for f in fields(Settings):
        if isinstance(getattr(Settings(), f.name), int) and f.type != "bool":
            assert setting_range(f.name) is not None, f.name


def test_an_unknown_key_is_named_and_the_rest_kept(tmp_path: Path) -> None:
    settings, notices, _ = _load(tmp_path, b'{"colour": "red", "model": "m"}')
    assert settings.model == "m"
    assert len(notices) == 1
    assert "« colour »" in notices[0]


def test_a_key_this_version_does_not_know_stays_in_the_file_through_a_change(
    tmp_path: Path,
) -> None:
    # a newer version's setting (or a person's own note) is not lost when this one writes
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"future_setting": {"on": True}, "model": "m"}))
    store = SettingsFile(path)
    store.update(lambda settings: setattr(settings, "model", "n"))
    written = json.loads(path.read_text())
    assert written["future_setting"] == {"on": True}
    assert written["model"] == "n"
    assert "future_setting" not in vars(store.load())


def test_a_file_read_again_and_again_keeps_one_notice_per_unknown_key(tmp_path: Path) -> None:
    # the MCP service reads the file on every edit: its notices must not pile up all day
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"colour": "red"}))
    store = SettingsFile(path)
    for _ in range(50):
        store.load()
    assert len(store.take_notices()) == 1


def test_one_bad_mcp_server_entry_is_left_to_the_mcp_config_not_all_servers_lost(
    tmp_path: Path,
) -> None:
    servers = {"fetch": {"enabled": True}, "broken": "on"}
    settings, notices, _ = _load(tmp_path, json.dumps({"mcp_servers": servers}).encode())
    assert settings.mcp_servers == servers  # core.mcp.config drops "broken" with its notice
    assert notices == []


def _nested(path: Path) -> None:
    path.write_text('{"a": ' * 1000 + "1" + "}" * 1000)


def _folder(path: Path) -> None:
    path.mkdir()
    (path / "inside.txt").write_text("kept\n")


def _device(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _loop(path: Path) -> None:
    path.symlink_to(path.with_name("other.json"))
    path.with_name("other.json").symlink_to(path)


def _huge(path: Path) -> None:
    path.write_text('{"model": "' + "x" * 5_000_000 + '"}')


@pytest.mark.timeout(20)  # /dev/zero was read until memory ran out; a FIFO waited forever
@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (_nested, "imbrication trop profonde"),
        (_folder, "dossier"),
        (_device, "fichier ordinaire"),
        (_fifo, "fichier ordinaire"),
        (_loop, ""),
        (_huge, "plus de 4 Mo"),
    ],
)
def test_a_damaged_settings_file_is_moved_aside_with_the_unreadable_notice(
    tmp_path: Path, damage: Callable[[Path], None], reason: str
) -> None:
    path = tmp_path / "settings.json"
    damage(path)
    store = SettingsFile(path)
    assert store.load() == Settings()
    (notice,) = store.take_notices()
    assert "illisible" in notice
    assert "mis de côté" in notice
    assert reason in notice
    assert not path.is_symlink()
    assert not path.exists()
    (kept,) = [p for p in tmp_path.iterdir() if p.name.startswith("settings.corrupt-")]
    if damage is _folder:
        assert (kept / "inside.txt").read_text() == "kept\n"  # moved, never deleted
    assert read_language(kept) == "auto"
    store.update(lambda settings: setattr(settings, "model", "m"))
    assert SettingsFile(path).load().model == "m"
