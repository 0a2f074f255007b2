"""The MCP service on the real settings file and the real keyring adapter (memory backend)."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

import keyring
import pytest
from keyring.backends import fail

from loki_desktop.core.mcp.config import McpConfigError
from loki_desktop.core.mcp.service import McpService
from loki_desktop.core.ports import SecretStoreUnavailable
from loki_desktop.persistence.secrets import KeyringSecrets
from loki_desktop.persistence.settings_file import SettingsFile
from tests.fakes.mcp_servers import script
from tests.fakes.memory_keyring import MemoryKeyring


@pytest.fixture
def settings_path(loki_home: Path) -> Path:
    return loki_home / "settings.json"


@pytest.fixture
def service(settings_path: Path) -> McpService:
    return McpService(SettingsFile(settings_path), KeyringSecrets())


def _files_contain(folder: Path, text: str) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and text.encode() in p.read_bytes()]


def test_catalogue_servers_are_listed_off_with_their_params(service: McpService) -> None:
    views = {view.id: view for view in service.servers()}
    assert set(views) == {"playwright", "context7", "fetch", "searxng"}
    assert not any(view.config.enabled for view in views.values())
    assert all(view.status.state == "inactive" for view in views.values())
    searxng = views["searxng"]
    assert searxng.label == "SearXNG"
    assert [p.name for p in searxng.params if p.required] == ["SEARXNG_URL"]
    assert [p.name for p in searxng.params if p.secret] == ["AUTH_PASSWORD"]
    assert [e.id for e in service.catalogue()] == ["playwright", "context7", "fetch", "searxng"]


def test_enable_set_and_problem(service: McpService, settings_path: Path) -> None:
    service.enable("searxng")
    assert service.problem("searxng") is not None
    assert "SEARXNG_URL" in (service.problem("searxng") or "")
    service.set_params("searxng", {"SEARXNG_URL": "http://127.0.0.1:8888"})
    assert service.problem("searxng") is None
    saved = json.loads(settings_path.read_text())["mcp_servers"]["searxng"]
    assert saved == {"enabled": True, "params": {"SEARXNG_URL": "http://127.0.0.1:8888"}}
    assert service.manager.enabled_ids == ["searxng"]
    service.set_params("searxng", {"SEARXNG_URL": None})
    service.disable("searxng")
    assert json.loads(settings_path.read_text())["mcp_servers"]["searxng"] == {"enabled": False}
    assert service.manager.enabled_ids == []
    with pytest.raises(McpConfigError, match="inconnu"):
        service.enable("nope")


def test_secrets_go_to_the_keyring_only(
    service: McpService, loki_home: Path, memory_keyring: MemoryKeyring
) -> None:
    service.set_params("context7", {"CONTEXT7_API_KEY": "ctx7sk-very-secret"})
    assert memory_keyring.values[("loki-desktop", "mcp/context7/CONTEXT7_API_KEY")] == (
        "ctx7sk-very-secret"
    )
    assert _files_contain(loki_home, "ctx7sk-very-secret") == []
    saved = json.loads((loki_home / "settings.json").read_text())["mcp_servers"]["context7"]
    assert saved["secrets"] == ["CONTEXT7_API_KEY"]
    assert service.server("context7").secrets_set == ("CONTEXT7_API_KEY",)
    service.set_params("context7", {"CONTEXT7_API_KEY": ""})
    assert memory_keyring.values == {}
    assert service.server("context7").secrets_set == ()


def test_without_a_keyring_a_secret_is_refused_and_nothing_is_written(
    service: McpService, loki_home: Path
) -> None:
    keyring.set_keyring(fail.Keyring())
    with pytest.raises(SecretStoreUnavailable, match="trousseau"):
        service.set_params("context7", {"CONTEXT7_API_KEY": "ctx7sk-nowhere"})
    with pytest.raises(SecretStoreUnavailable):
        service.add_stdio("mine", ["srv"], env={"API_TOKEN": "tok-nowhere"})
    assert not (loki_home / "settings.json").exists()
    assert _files_contain(loki_home, "nowhere") == []


def test_a_plaintext_keyring_is_refused(service: McpService) -> None:
    class PlaintextKeyring(MemoryKeyring):
        """Named like keyrings.alt's file backend that writes secrets in clear."""

    keyring.set_keyring(PlaintextKeyring())
    with pytest.raises(SecretStoreUnavailable, match="en clair"):
        service.set_params("context7", {"CONTEXT7_API_KEY": "x"})


def test_add_and_remove_custom_servers(service: McpService, memory_keyring: MemoryKeyring) -> None:
    stdio = service.add_stdio(
        "mine", [sys.executable, script("echo")], env={"MODE": "a", "API_KEY": "k1"}, enabled=True
    )
    assert (stdio.params, stdio.secrets) == ({"MODE": "a"}, ("API_KEY",))
    http = service.add_http(
        "web",
        "http://127.0.0.1:1/mcp",
        headers={"Authorization": "Bearer z", "X-Custom-Session": "1", "Accept": "text/plain"},
    )
    # a header is a secret unless it is one of the few plain ones
    assert (http.params, http.secrets) == (
        {"Accept": "text/plain"},
        ("Authorization", "X-Custom-Session"),
    )
    with pytest.raises(McpConfigError, match="existe déjà"):
        service.add_stdio("mine", ["x"])
    with pytest.raises(McpConfigError, match="existe déjà"):
        service.add_stdio("fetch", ["x"])
    with pytest.raises(McpConfigError, match="Nom de serveur invalide"):
        service.add_stdio("My_Server", ["x"])
    assert service.manager.enabled_ids == ["mine"]
    assert len(memory_keyring.values) == 3
    service.remove("mine")
    service.remove("web")
    assert memory_keyring.values == {}
    assert {v.id for v in service.servers()} == {"playwright", "context7", "fetch", "searxng"}
    with pytest.raises(McpConfigError, match="catalogue"):
        service.remove("fetch")


def test_import_a_claude_desktop_file(
    service: McpService, tmp_path: Path, loki_home: Path, memory_keyring: MemoryKeyring
) -> None:
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "github": {
                        "command": "npx",
                        "args": ["-y", "@modelcontextprotocol/server-github"],
                        "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_imported"},
                    },
                    "Remote API": {
                        "url": "https://example.com/mcp",
                        "headers": {"Authorization": "Bearer imported-token"},
                        "enabled": True,
                    },
                }
            }
        )
    )
    report = service.import_file(source)
    assert [(c.id, c.enabled) for c in report.added] == [("github", False), ("remote-api", True)]
    assert report.secrets_stored == 2
    assert _files_contain(loki_home, "imported") == []
    assert memory_keyring.values[("loki-desktop", "mcp/github/GITHUB_PERSONAL_ACCESS_TOKEN")] == (
        "ghp_imported"
    )
    again = service.import_file(source)  # same names: new ids, nothing overwritten
    assert [c.id for c in again.added] == ["github-2", "remote-api-2"]


def test_import_without_keyring_writes_nothing(
    service: McpService, tmp_path: Path, loki_home: Path
) -> None:
    keyring.set_keyring(fail.Keyring())
    source = tmp_path / "c.json"
    source.write_text(json.dumps({"mcpServers": {"a": {"command": "x", "env": {"API_KEY": "v"}}}}))
    report = service.import_file(source)  # the server with a secret is left out, and said so
    assert report.added == []
    (skipped,) = report.skipped
    assert "« a »" in skipped
    assert "trousseau" in skipped
    assert not (loki_home / "settings.json").exists()
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    with pytest.raises(McpConfigError, match="JSON"):
        service.import_file(bad)


async def test_test_reports_tools_or_the_error(service: McpService, settings_path: Path) -> None:
    service.add_stdio("mine", [sys.executable, script("echo")])
    try:
        result = await service.test("mine")
        assert result.ok
        assert "echo" in result.tools
        missing = await service.test("searxng")
        assert not missing.ok
        assert "SEARXNG_URL" in missing.message
    finally:
        await service.aclose()
    # a success records the cost, so `mcp list` can show it without starting the server
    assert result.schema_tokens > 0
    measured = (len(result.exposed), result.schema_tokens)
    assert service.server("mine").config.measured == measured
    saved = json.loads(settings_path.read_text())["mcp_servers"]["mine"]["measured"]
    assert saved == {"tools": measured[0], "tokens": measured[1]}
    assert service.server("searxng").config.measured is None
    service.disable("mine")  # other edits keep the record
    assert service.server("mine").config.measured == measured


def test_a_junk_cost_record_is_ignored(service: McpService, settings_path: Path) -> None:
    settings_path.write_text(json.dumps({"mcp_servers": {"fetch": {"measured": {"tools": "x"}}}}))
    assert service.server("fetch").config.measured is None
    assert service.notices == []


IN_COMMANDS = {
    "mcpServers": {
        "brave": {
            "command": "npx",
            "args": ["-y", "@smithery/cli", "run", "brave", "--key", "sk-live-123456"],
        },
        "zap": {"url": "https://mcp.example.com/api/mcp?api_key=abcd1234"},
        "gh": {
            "command": "docker",
            "args": ["run", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN=ghp_xxxxxxxx", "ghcr.io/gh"],
        },
    }
}
IN_COMMANDS_SECRETS = ("sk-live-123456", "abcd1234", "ghp_xxxxxxxx")


def test_secrets_in_arguments_and_urls_go_to_the_keyring(
    service: McpService, loki_home: Path, memory_keyring: MemoryKeyring
) -> None:
    report = service.import_config(IN_COMMANDS)
    assert report.secrets_stored == 3
    added = service.add_stdio("mine", ["srv", "--api-key=k-added-1"])
    web = service.add_http("web", "http://127.0.0.1:9/mcp?token=t-added-2")
    assert added.command == ("srv", "--api-key=${API_KEY}")
    assert web.url == "http://127.0.0.1:9/mcp?token=${token}"
    for value in (*IN_COMMANDS_SECRETS, "k-added-1", "t-added-2"):
        assert _files_contain(loki_home, value) == []
        assert value in memory_keyring.values.values()
        for view in service.servers():  # what `mcp list` and the settings show
            assert value not in view.description
            assert value not in json.dumps(view.config.to_json())
    assert memory_keyring.values[("loki-desktop", "mcp/brave/KEY")] == "sk-live-123456"
    assert service.server("gh").description == (
        "Commande : docker run -e "
        "GITHUB_PERSONAL_ACCESS_TOKEN=${GITHUB_PERSONAL_ACCESS_TOKEN} ghcr.io/gh"
    )
    service.remove("brave")  # removing a server forgets the secrets moved out of its command
    assert ("loki-desktop", "mcp/brave/KEY") not in memory_keyring.values


def test_secrets_in_arguments_without_a_keyring_write_nothing(
    service: McpService, loki_home: Path
) -> None:
    keyring.set_keyring(fail.Keyring())
    report = service.import_config(IN_COMMANDS)
    assert report.added == []
    assert len(report.skipped) == 3
    assert all("trousseau" in line for line in report.skipped)
    with pytest.raises(SecretStoreUnavailable):
        service.add_stdio("mine", ["srv", "--token", "tok-nowhere"])
    with pytest.raises(SecretStoreUnavailable):
        service.add_http("web", "https://h/mcp?api_key=qs-nowhere")
    assert not (loki_home / "settings.json").exists()
    assert _files_contain(loki_home, "nowhere") == []


async def test_moved_secrets_reach_the_server_and_are_masked(
    service: McpService, launch_echo_http: str
) -> None:
    service.add_stdio(
        "args", [sys.executable, script("launch_echo"), "--api-key", "sk-arg-31337"], enabled=True
    )
    service.add_http("web", f"{launch_echo_http}?api_key=qs-secret-4242&team=7", enabled=True)
    manager = service.manager
    try:
        assert await manager.prepare() == []
        argv = await manager.call("mcp_args_argv", {})
        assert argv.output == "--api-key ••••"  # the secret itself, masked for the model
        query = await manager.call("mcp_web_query", {"name": "api_key"})
        assert query.output == "••••"
        assert (await manager.call("mcp_web_query", {"name": "team"})).output == "7"
        header = await manager.call("mcp_web_header", {"name": "api_key"})
        assert header.output == "(unset)"  # put in the URL, not sent again as a header
    finally:
        await service.aclose()


def test_an_edit_waiting_on_the_keyring_keeps_a_change_saved_meanwhile(
    settings_path: Path,
) -> None:
    """The service's edit runs in a worker thread and may wait on an unlock prompt; the
    window saving the language meanwhile is not undone when the edit is written."""
    from loki_desktop.core.settings import Settings
    from tests.fakes.memory_keyring import LockedKeyring

    store = SettingsFile(settings_path)
    store.save(Settings(language="fr"))
    locked = LockedKeyring()
    keyring.set_keyring(locked)
    service = McpService(store, KeyringSecrets())
    errors: list[BaseException] = []

    def edit() -> None:
        try:
            service.set_params("searxng", {"AUTH_PASSWORD": "s3cret", "SEARXNG_URL": "http://x"})
        except BaseException as exc:  # said by the assertion below
            errors.append(exc)

    worker = threading.Thread(target=edit)
    worker.start()
    assert locked.asked.wait(timeout=60)
    # the window (its own owner of the same file) saves the language while the edit waits
    SettingsFile(settings_path).update(lambda s: setattr(s, "language", "en"))
    locked.unlock.set()
    worker.join(timeout=60)
    assert errors == []
    saved = json.loads(settings_path.read_text())
    assert saved["language"] == "en"
    assert saved["mcp_servers"]["searxng"] == {
        "enabled": False,
        "params": {"SEARXNG_URL": "http://x"},
        "secrets": ["AUTH_PASSWORD"],
    }
