""".mcpb bundles: a real bundle (a Python MCP server in a zip with its manifest) installed,
run and removed; and every kind of bad bundle refused with one sentence, nothing left."""

from __future__ import annotations

import json
import stat
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from loki_desktop.core.mcp.bundle import parse_manifest, read_bundle, server_line
from loki_desktop.core.mcp.config import McpConfigError, secret_key
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.core.mcp.service import McpService
from loki_desktop.persistence.secrets import KeyringSecrets
from loki_desktop.persistence.settings_file import SettingsFile
from tests.fakes.mcpb import SECRET, manifest, pack


@pytest.fixture
def service(loki_home: Path) -> McpService:
    return McpService(
        SettingsFile(loki_home / "settings.json"), KeyringSecrets(), data_home=loki_home
    )


async def test_a_bundle_installs_runs_with_its_secret_and_uninstalls(
    service: McpService, loki_home: Path, tmp_path: Path
) -> None:
    bundle = pack(tmp_path / "echo.mcpb", manifest())
    config = service.install_bundle(bundle, {"api_key": SECRET}, enabled=True)
    assert config.id == "echo-bundle"
    folder = loki_home / "mcp-bundles" / "echo-bundle"
    assert (folder / "server" / "echo.py").is_file()
    settings_text = (loki_home / "settings.json").read_text()
    assert SECRET not in settings_text  # the sensitive value is in the keyring only
    assert KeyringSecrets().get(secret_key("echo-bundle", "API_KEY")) == SECRET
    entry = json.loads(settings_text)["mcp_servers"]["echo-bundle"]
    assert entry["command"] == [sys.executable, str(folder / "server" / "echo.py")]
    assert entry["params"]["REGION"] == "eu"  # a default value

    manager = McpManager.from_settings(
        SettingsFile(loki_home / "settings.json").load().mcp_servers,
        KeyringSecrets(),
        connect_wait=60,
    )
    try:
        assert await manager.prepare() == []
        key = await manager.call("mcp_echo-bundle_env", {"name": "API_KEY"})
        region = await manager.call("mcp_echo-bundle_env", {"name": "REGION"})
    finally:
        await manager.aclose()
    assert key.ok
    assert key.output == "••••"  # the real value reached the server (masked for the model)
    assert region.output == "eu"

    service.remove("echo-bundle")
    assert not folder.exists()
    assert KeyringSecrets().get(secret_key("echo-bundle", "API_KEY")) is None


def test_what_a_bundle_says_of_itself(tmp_path: Path) -> None:
    bundle = read_bundle(pack(tmp_path / "echo.mcpb", manifest()))
    assert (bundle.display_name, bundle.version, bundle.author) == (
        "Echo Bundle",
        "1.2.0",
        "Loki tests",
    )
    assert bundle.tools == ("echo", "env")
    assert [(o.key, o.sensitive, o.required) for o in bundle.options] == [
        ("api_key", True, True),
        ("region", False, False),
    ]


def test_variables_and_array_expansion(tmp_path: Path) -> None:
    data = manifest()
    data["server"]["mcp_config"]["args"] = [
        "${__dirname}/server/echo.py",
        "--dirs",
        "${user_config.dirs}",
        "--key=${user_config.api_key}",
        "${HOME}${/}notes",
    ]
    data["user_config"]["dirs"] = {"type": "directory", "title": "Dirs", "multiple": True}
    line = server_line(parse_manifest(data), tmp_path, {"api_key": SECRET, "dirs": ["/a", "/b"]})
    assert line.command[2:5] == ("--dirs", "/a", "/b")  # one argument per value
    assert line.command[5] == "--key=${USER_CONFIG_API_KEY}"  # a keyring placeholder
    assert line.command[6] == str(Path.home() / "notes")
    assert line.secrets == {"USER_CONFIG_API_KEY": SECRET, "API_KEY": SECRET}
    assert SECRET not in " ".join(line.command) + json.dumps(dict(line.env))


def _symlink_member(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("manifest.json", json.dumps(manifest()))
        link = zipfile.ZipInfo("server/link")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
    return path


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda p: p.write_bytes(b"not a zip at all") and p, "pas une archive zip"),
        (lambda p: pack(p, "{not json"), "illisible"),
        (lambda p: pack(p, manifest(server=None)), "comment lancer"),
        (lambda p: pack(p, manifest(author={})), "auteur"),
        (lambda p: pack(p, manifest(), {"../evil.py": b"x"}), "sort de son dossier"),
        (lambda p: pack(p, manifest(), {"/etc/evil": b"x"}), "sort de son dossier"),
        (lambda p: pack(p, manifest(), {"big.bin": bytes(20 * 1024 * 1024)}), "anormale"),
        (_symlink_member, "lien"),
    ],
    ids=["not-zip", "bad-json", "no-server", "no-author", "dotdot", "absolute", "bomb", "link"],
)
def test_a_bad_bundle_is_refused_with_one_sentence_and_leaves_nothing(
    service: McpService, loki_home: Path, tmp_path: Path, make: Any, said: str
) -> None:
    path = make(tmp_path / "bad.mcpb")
    with pytest.raises(McpConfigError, match=said):
        service.install_bundle(path, {"api_key": SECRET})
    assert not (loki_home / "mcp-bundles").exists() or not any(
        (loki_home / "mcp-bundles").iterdir()
    )
    assert "echo-bundle" not in SettingsFile(loki_home / "settings.json").load().mcp_servers


def test_a_bundle_without_a_manifest(service: McpService, tmp_path: Path) -> None:
    path = tmp_path / "empty.mcpb"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("server/x.py", "print(1)")
    with pytest.raises(McpConfigError, match=r"manifest\.json"):
        service.install_bundle(path, {})


@pytest.mark.parametrize(
    ("values", "said"),
    [
        ({}, "API Key"),  # required and not given
        ({"api_key": "k", "colour": "red"}, "colour"),  # not asked for
    ],
)
def test_wrong_values_are_said_before_anything_is_unpacked(
    service: McpService, loki_home: Path, tmp_path: Path, values: dict[str, str], said: str
) -> None:
    path = pack(tmp_path / "echo.mcpb", manifest())
    with pytest.raises(McpConfigError, match=said):
        service.install_bundle(path, values)
    assert not (loki_home / "mcp-bundles" / "echo-bundle").exists()


def test_a_number_option_is_checked_against_its_bounds(tmp_path: Path) -> None:
    data = manifest()
    data["user_config"]["size"] = {"type": "number", "title": "Size", "min": 1, "max": 100}
    bundle = parse_manifest(data)
    with pytest.raises(McpConfigError, match="entre 1 et 100"):
        server_line(bundle, tmp_path, {"api_key": "k", "size": "500"})
    with pytest.raises(McpConfigError, match="nombre"):
        server_line(bundle, tmp_path, {"api_key": "k", "size": "big"})
