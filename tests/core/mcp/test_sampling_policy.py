"""Each server's sampling policy: read from the settings, set by the service, told to the
live manager without a restart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loki_desktop.core.mcp.catalogue import CATALOGUE_IDS
from loki_desktop.core.mcp.config import McpConfigError, parse_servers
from loki_desktop.core.mcp.service import McpService
from loki_desktop.persistence.secrets import KeyringSecrets
from loki_desktop.persistence.settings_file import SettingsFile


def test_the_policy_is_read_and_a_bad_one_is_ask_with_a_notice() -> None:
    servers, notices = parse_servers(
        {
            "a": {"command": ["x"], "sampling": "never"},
            "b": {"command": ["x"]},
            "c": {"command": ["x"], "sampling": "sometimes"},
        },
        CATALOGUE_IDS,
    )
    assert [servers[s].sampling for s in "abc"] == ["never", "ask", "ask"]
    assert len(notices) == 1
    assert "« c »" in notices[0]
    assert servers["a"].to_json()["sampling"] == "never"
    assert "sampling" not in servers["b"].to_json()  # the default is not written


def test_setting_it_saves_it_and_the_manager_follows_without_a_restart(loki_home: Path) -> None:
    path = loki_home / "settings.json"
    path.write_text(json.dumps({"mcp_servers": {"web": {"command": ["x"], "enabled": True}}}))
    service = McpService(SettingsFile(path), KeyringSecrets())
    assert service.manager.client.policy("web") == "ask"
    service.set_sampling("web", "always")
    assert json.loads(path.read_text())["mcp_servers"]["web"]["sampling"] == "always"
    assert service.manager.client.policy("web") == "always"
    assert service.manager.enabled_ids == ["web"]  # the same slot: nothing was restarted
    with pytest.raises(McpConfigError):
        service.set_sampling("web", "sometimes")  # type: ignore[arg-type]


def test_without_allow_sampling_every_server_is_never(loki_home: Path) -> None:
    path = loki_home / "settings.json"
    path.write_text(json.dumps({"mcp_servers": {"web": {"command": ["x"], "sampling": "always"}}}))
    client = McpService(SettingsFile(path), KeyringSecrets()).manager.client
    client.allow_sampling = False
    assert client.policy("web") == "never"
