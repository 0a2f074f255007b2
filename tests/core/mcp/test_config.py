"""Server settings, catalogue commands, tool naming and result conversion (no process)."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from loki_desktop.core.mcp import catalogue
from loki_desktop.core.mcp.browser import browser_enabled, with_preview
from loki_desktop.core.mcp.catalogue import (
    CATALOGUE,
    CATALOGUE_IDS,
    PLAYWRIGHT_MCP_VERSION,
    LaunchContext,
    fetch_command,
)
from loki_desktop.core.mcp.config import (
    McpConfigError,
    ServerConfig,
    check_server_id,
    is_secret_name,
    parse_servers,
    slugify,
)
from loki_desktop.core.mcp.convert import (
    McpTool,
    exposed,
    looks_failed,
    result_text,
    split_tool_name,
    to_spec,
    tool_name,
)
from loki_desktop.core.mcp.importer import plan_import
from loki_desktop.core.mcp.launch import HttpLaunch, StdioLaunch, build_launch
from loki_desktop.core.ports import ToolSpec
from loki_desktop.core.slim import slim_spec


class DictSecrets:
    """A SecretStore holding values in a dict (the launch only reads it)."""

    def __init__(self, values: dict[str, str] | None = None) -> None:
        self.values = dict(values or {})

    def get(self, name: str) -> str | None:
        return self.values.get(name)

    def set(self, name: str, value: str) -> None:
        self.values[name] = value

    def delete(self, name: str) -> None:
        self.values.pop(name, None)


# --- settings -------------------------------------------------------------------------------


def test_every_catalogue_server_is_known_and_off_by_default() -> None:
    servers, notices = parse_servers({}, CATALOGUE_IDS)
    assert notices == []
    assert set(servers) == {"playwright", "context7", "fetch", "searxng"}
    assert not any(config.enabled for config in servers.values())
    for entry in CATALOGUE.values():
        assert entry.label
        assert entry.description


def test_junk_entries_are_dropped_with_a_notice_and_good_ones_kept() -> None:
    raw = {
        "fetch": {"enabled": True},
        "Bad_Id": {"enabled": True, "command": ["x"]},
        "nothing": {"enabled": True},
        "notobj": 42,
        "wrongflag": {"enabled": "yes", "command": ["x"]},
        "both": {"command": ["x"], "url": "http://a"},
        "badurl": {"url": "ftp://a"},
        "mine": {"enabled": True, "command": ["python", "-m", "srv"], "params": {"A": "1"}},
    }
    servers, notices = parse_servers(raw, CATALOGUE_IDS)
    assert servers["fetch"].enabled
    assert servers["mine"] == ServerConfig(
        "mine",
        "stdio",
        enabled=True,
        label="",
        params={"A": "1"},
        command=("python", "-m", "srv"),
    )
    for bad in ("Bad_Id", "nothing", "notobj", "wrongflag", "both", "badurl"):
        assert bad not in servers
        assert any(f"« {bad} »" in notice for notice in notices), bad
    assert parse_servers("junk", CATALOGUE_IDS)[1]  # type: ignore[arg-type]


def test_a_secret_written_in_clear_in_the_file_is_ignored_and_not_echoed() -> None:
    raw = {"context7": {"enabled": True, "params": {"CONTEXT7_API_KEY": "sk-visible"}}}
    servers, notices = parse_servers(raw, CATALOGUE_IDS)
    assert servers["context7"].params == {}
    assert len(notices) == 1
    assert "CONTEXT7_API_KEY" in notices[0]
    assert "sk-visible" not in notices[0]


def test_config_round_trips_through_json() -> None:
    configs = [
        ServerConfig("a", "stdio", True, "Mon A", {"X": "1"}, ("API_KEY",), ("npx", "-y", "a")),
        ServerConfig("b", "http", False, "B", {"X-Trace": "1"}, ("Authorization",), url="http://b"),
        ServerConfig("fetch", "catalogue", True, expose=("fetch",)),
    ]
    raw = json.loads(json.dumps({c.id: c.to_json() for c in configs}))
    servers, notices = parse_servers(raw, CATALOGUE_IDS)
    assert notices == []
    for config in configs:
        assert servers[config.id] == config


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("API_KEY", True),
        ("GITHUB_TOKEN", True),
        ("client_secret", True),
        ("AUTH_PASSWORD", True),
        ("Authorization", True),
        ("Cookie", True),
        ("SEARXNG_URL", False),
        ("X-Trace", False),
        ("BROWSER_PATH", False),
    ],
)
def test_secret_names(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


def test_server_ids_cannot_hold_an_underscore_and_come_with_a_suggestion() -> None:
    assert check_server_id("my-server2") == "my-server2"
    with pytest.raises(McpConfigError, match="my-server"):
        check_server_id("My_Server")
    for bad in ("", "-a", "a" * 33, "é"):
        with pytest.raises(McpConfigError):
            check_server_id(bad)
    assert slugify("Brave Search (beta)") == "brave-search-beta"


# --- tool names and schemas ------------------------------------------------------------------


def test_tool_names_split_back_to_their_server() -> None:
    name = tool_name("my-srv", "browser_take_screenshot")
    assert name == "mcp_my-srv_browser_take_screenshot"
    assert split_tool_name(name) == ("my-srv", "browser_take_screenshot")
    assert split_tool_name("read_file") is None
    # names models cannot take are made safe and kept unique
    odd = tool_name("s", "files/read.v2")
    assert odd.startswith("mcp_s_files_read_v2_")
    assert odd != tool_name("s", "files_read_v2")
    long = tool_name("s", "x" * 100)
    assert len(long) <= 64
    assert split_tool_name(long) is not None


def test_specs_keep_the_servers_schema_and_slimming_drops_titles_not_properties() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "fetchArguments",
        "type": "object",
        "properties": {
            "title": {"title": "Title", "type": "string"},
            "opts": {
                "title": "Opts",
                "type": "object",
                "properties": {"n": {"title": "N", "type": "integer", "default": 3}},
            },
            "tags": {"type": "array", "items": {"title": "Tag", "type": "string"}},
            "mode": {"anyOf": [{"title": "A", "const": "a"}, {"type": "null"}]},
        },
        "required": ["title"],
    }
    spec = to_spec("fetch", McpTool("fetch", "Fetch.", schema))
    assert spec.parameters == schema  # slimmed once, on every request (core.slim)
    assert slim_spec(spec).parameters == {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "opts": {"type": "object", "properties": {"n": {"type": "integer", "default": 3}}},
            "tags": {"type": "array", "items": {"type": "string"}},
            "mode": {"const": "a"},
        },
        "required": ["title"],
    }


def test_expose_keeps_the_servers_order_and_spec_carries_the_server() -> None:
    tools = [McpTool(n, f"does {n}", {"type": "object"}) for n in ("a", "b", "c")]
    assert [t.name for t in exposed(tools, ("c", "a", "zzz"))] == ["a", "c"]
    assert exposed(tools, None) == tools
    spec = to_spec("srv", tools[0])
    assert (spec.name, spec.description, spec.source) == ("mcp_srv_a", "does a", "srv")


# --- results ---------------------------------------------------------------------------------


def test_result_text_names_binaries_instead_of_inlining_them() -> None:
    blocks = [
        SimpleNamespace(type="text", text="hello"),
        SimpleNamespace(type="image", data="A" * 400, mime_type="image/png"),
        SimpleNamespace(type="resource_link", uri="file:///x"),
        SimpleNamespace(type="resource", resource=SimpleNamespace(text="inline", uri="u")),
        SimpleNamespace(type="resource", resource=SimpleNamespace(blob="AAAA", uri="b://x")),
    ]
    assert result_text(blocks) == (
        "hello\n[image image/png, 300 bytes]\n[resource file:///x]\ninline\n[binary resource b://x]"
    )
    assert result_text([], {"a": 1}) == '{"a": 1}'


def test_known_error_text_counts_only_in_short_results() -> None:
    markers = ("fetch failed",)
    assert looks_failed("Error searching libraries: TypeError: fetch failed", markers)
    assert not looks_failed("A page about why fetch failed in Node 18. " * 20, markers)
    assert not looks_failed("all good", markers)


# --- catalogue commands and launches ------------------------------------------------------------


def test_fetch_runs_with_this_python_or_the_bundles_sub_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert fetch_command() == [sys.executable, "mcp-fetch-server"]
    monkeypatch.delattr(sys, "frozen")
    assert fetch_command() == [sys.executable, "-m", "loki_desktop.cli.fetch_server"]
    launch = build_launch(ServerConfig("fetch", "catalogue", True), DictSecrets())
    assert isinstance(launch.target, StdioLaunch)
    assert (launch.target.command, launch.target.args) == (
        sys.executable,
        ("-m", "loki_desktop.cli.fetch_server"),
    )


def test_fetch_allows_local_addresses_only_when_its_box_is_ticked() -> None:
    def args(params: dict[str, str]) -> tuple[str, ...]:
        launch = build_launch(
            ServerConfig("fetch", "catalogue", True, params=params), DictSecrets()
        )
        assert isinstance(launch.target, StdioLaunch)
        assert "ALLOW_LOCAL" not in launch.target.env  # a flag, not an environment variable
        return launch.target.args

    assert "--allow-private-ips" not in args({})
    assert "--allow-private-ips" in args({"ALLOW_LOCAL": "1"})
    param = CATALOGUE["fetch"].param("ALLOW_LOCAL")
    assert param is not None
    assert param.target == "flag"


def _fake_browser(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_playwright_uses_the_given_browser_and_exposes_six_tools(tmp_path: Path) -> None:
    browser = _fake_browser(tmp_path, "my-chrome")
    config = ServerConfig("playwright", "catalogue", True, params={"BROWSER_PATH": str(browser)})
    launch = build_launch(config, DictSecrets(), LaunchContext(data_home=tmp_path / "data"))
    assert isinstance(launch.target, StdioLaunch)
    argv = [launch.target.command, *launch.target.args]
    # a tested version, never @latest (which asks the registry before the cache)
    spec = f"@playwright/mcp@{PLAYWRIGHT_MCP_VERSION}"
    assert argv[:5] == ["npx", "--prefer-offline", "-y", spec, "--headless"]
    assert "@latest" not in " ".join(argv)
    # its snapshots, logs and screenshots go to Loki's data folder, not the working directory
    assert argv[argv.index("--output-dir") + 1] == str(tmp_path / "data" / "playwright-output")
    assert argv[argv.index("--executable-path") + 1] == str(browser)
    assert "--isolated" in argv
    assert "BROWSER_PATH" not in launch.target.env  # an argument, not an environment variable
    assert launch.expose is not None
    assert len(launch.expose) == 6
    assert "browser_take_screenshot" in launch.expose


@pytest.mark.skipif(sys.platform == "win32", reason="PATH lookup of a shell script")
def test_playwright_finds_a_chromium_on_path_or_says_what_to_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(sys, "platform", "linux")
    with pytest.raises(McpConfigError, match="BROWSER_PATH"):
        catalogue.playwright_command({}, LaunchContext())
    browser = _fake_browser(tmp_path, "chromium-browser")
    assert catalogue.find_chromium() == str(browser)
    assert str(browser) in catalogue.playwright_command({}, LaunchContext())
    with pytest.raises(McpConfigError, match="introuvable"):
        catalogue.playwright_command({"BROWSER_PATH": str(tmp_path / "nope")}, LaunchContext())


def test_launch_reads_secrets_from_the_store_and_masks_them() -> None:
    config = ServerConfig(
        "mine", "stdio", True, params={"MODE": "x"}, secrets=("API_KEY",), command=("srv", "-v")
    )
    store = DictSecrets({"mcp/mine/API_KEY": "sk-12345"})
    launch = build_launch(config, store)
    assert isinstance(launch.target, StdioLaunch)
    assert launch.target.env["API_KEY"] == "sk-12345"
    assert launch.target.env["MODE"] == "x"
    assert launch.redact("failed with sk-12345") == "failed with ••••"
    with pytest.raises(McpConfigError, match="API_KEY"):
        build_launch(config, DictSecrets())


def test_http_launch_puts_params_and_secrets_in_headers() -> None:
    config = ServerConfig(
        "web", "http", True, params={"X-Trace": "1"}, secrets=("Authorization",), url="http://h/mcp"
    )
    launch = build_launch(config, DictSecrets({"mcp/web/Authorization": "Bearer t0ken"}))
    assert launch.target == HttpLaunch(
        "http://h/mcp", {"X-Trace": "1", "Authorization": "Bearer t0ken"}
    )


def test_searxng_needs_its_url() -> None:
    with pytest.raises(McpConfigError, match="SEARXNG_URL"):
        build_launch(ServerConfig("searxng", "catalogue", True), DictSecrets())
    config = ServerConfig("searxng", "catalogue", True, params={"SEARXNG_URL": "http://s"})
    launch = build_launch(config, DictSecrets())
    assert isinstance(launch.target, StdioLaunch)
    assert launch.target.env["SEARXNG_URL"] == "http://s"
    assert launch.target.args == ("-y", "mcp-searxng")


def test_passed_environment_is_limited(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy:3128")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-for-servers")
    launch = build_launch(ServerConfig("fetch", "catalogue", True), DictSecrets())
    assert isinstance(launch.target, StdioLaunch)
    assert launch.target.env["HTTPS_PROXY"] == "http://proxy:3128"
    assert "AWS_SECRET_ACCESS_KEY" not in launch.target.env
    assert os.environ["AWS_SECRET_ACCESS_KEY"]


def test_npms_own_settings_reach_npx_servers_but_its_credentials_do_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("npm_config_cache", "/srv/npm-cache")
    monkeypatch.setenv("NPM_CONFIG_OFFLINE", "true")
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:4873/")
    monkeypatch.setenv("npm_config__authToken", "npm_abcdefghijklmnopqrstuvwxyz0123456789")
    monkeypatch.setenv("npm_config_//registry.example/:_password", "hunter2")
    monkeypatch.setenv("npm_config_https_proxy", "http://user:s3cret-pass@proxy:3128")
    config = ServerConfig("searxng", "catalogue", True, params={"SEARXNG_URL": "http://s"})
    launch = build_launch(config, DictSecrets())
    assert isinstance(launch.target, StdioLaunch)
    env = launch.target.env
    assert env["npm_config_cache"] == "/srv/npm-cache"
    assert env["NPM_CONFIG_OFFLINE"] == "true"
    assert env["npm_config_registry"] == "http://127.0.0.1:4873/"
    assert "npm_config__authToken" not in env
    assert "npm_config_//registry.example/:_password" not in env
    assert "npm_config_https_proxy" not in env  # a password in the URL


# --- import ------------------------------------------------------------------------------------


def test_import_plan_splits_secrets_and_defaults_to_off() -> None:
    data = {
        "mcpServers": {
            "GitHub Server": {
                "command": "npx",
                "args": ["-y", "@modelcontextprotocol/server-github"],
                "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_x", "LOG": "debug"},
            },
            "remote": {
                "url": "https://example.com/mcp",
                "headers": {
                    "Authorization": "Bearer abc",
                    "X-Custom-Session": "s3ss10n",
                    "Accept": "application/json",
                    "X-Region": "${REGION}",
                },
                "enabled": True,
            },
            "fetch": {"command": "uvx", "args": ["mcp-server-fetch"], "disabled": False},
            "old": {"type": "sse", "url": "https://example.com/sse"},
            "broken": {"args": []},
        }
    }
    plan = plan_import(data, taken=CATALOGUE_IDS)
    by_name = {s.name: s for s in plan.servers}
    github = by_name["GitHub Server"]
    assert github.config.id == "github-server"
    assert not github.config.enabled
    assert github.config.params == {"LOG": "debug"}
    assert github.config.secrets == ("GITHUB_PERSONAL_ACCESS_TOKEN",)
    assert github.secrets == {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_x"}
    assert "ghp_x" not in json.dumps(github.config.to_json())
    remote = by_name["remote"]
    assert remote.config.enabled
    assert remote.config.kind == "http"
    # every header is a secret but a short list of plain ones (and a ${NAME} reference)
    assert remote.config.params == {"Accept": "application/json", "X-Region": "${REGION}"}
    assert remote.secrets == {"Authorization": "Bearer abc", "X-Custom-Session": "s3ss10n"}
    assert by_name["fetch"].config.id == "fetch-2"  # the catalogue's id is taken
    assert by_name["fetch"].config.enabled
    assert len(plan.skipped) == 2
    with pytest.raises(McpConfigError, match="mcpServers"):
        plan_import({"servers": {}}, taken=())


def test_import_moves_secrets_out_of_arguments_and_urls() -> None:
    data = {
        "mcpServers": {
            "brave": {
                "command": "npx",
                "args": ["-y", "@smithery/cli", "run", "brave", "--key", "sk-live-123456"],
            },
            "zap": {"url": "https://mcp.example.com/api/mcp?api_key=abcd1234&team=7"},
            "gh": {
                "command": "docker",
                "args": ["run", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN=ghp_xxxxxxxx", "ghcr.io/gh"],
                "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_other"},
            },
            "opts": {
                "command": "srv",
                "args": ["--api-key=k-1", "--token", "t-2", "--verbose", "--password", "--x"],
            },
            "ref": {"command": "srv", "args": ["--token", "${GITHUB_TOKEN}"]},
            "basic": {"url": "https://me:pa55word@h.example/mcp"},
        }
    }
    by_name = {s.name: s for s in plan_import(data, taken=CATALOGUE_IDS).servers}
    brave = by_name["brave"]
    assert brave.config.command[-2:] == ("--key", "${KEY}")
    assert brave.secrets == {"KEY": "sk-live-123456"}
    assert brave.config.secrets == ("KEY",)
    zap = by_name["zap"]
    assert zap.config.url == "https://mcp.example.com/api/mcp?api_key=${api_key}&team=7"
    assert zap.secrets == {"api_key": "abcd1234"}
    gh = by_name["gh"]  # the name is taken by another value of the env: a second name
    assert gh.config.command[3] == "GITHUB_PERSONAL_ACCESS_TOKEN=${GITHUB_PERSONAL_ACCESS_TOKEN_2}"
    assert gh.secrets == {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_other",
        "GITHUB_PERSONAL_ACCESS_TOKEN_2": "ghp_xxxxxxxx",
    }
    opts = by_name["opts"]  # a secret-named flag followed by another option has no value
    assert opts.config.command[1:] == (
        "--api-key=${API_KEY}",
        "--token",
        "${TOKEN}",
        "--verbose",
        "--password",
        "--x",
    )
    assert opts.secrets == {"API_KEY": "k-1", "TOKEN": "t-2"}
    assert by_name["ref"].secrets == {}  # already a placeholder: nothing to move
    basic = by_name["basic"]
    assert basic.config.url == "https://me:${PASSWORD}@h.example/mcp"
    assert basic.secrets == {"PASSWORD": "pa55word"}
    saved = json.dumps([s.config.to_json() for s in by_name.values()])
    moved = ("sk-live-123456", "abcd1234", "ghp_xxxxxxxx", "ghp_other", "k-1", "t-2", "pa55word")
    for value in moved:
        assert value not in saved


def test_launch_puts_secrets_back_in_arguments_and_urls_and_masks_them() -> None:
    stdio_config = ServerConfig(
        "brave",
        "stdio",
        True,
        secrets=("KEY",),
        command=("npx", "brave", "--key", "${KEY}", "--x=${KEY}", "${UNKNOWN}"),
    )
    launch = build_launch(stdio_config, DictSecrets({"mcp/brave/KEY": "sk-live-123456"}))
    assert isinstance(launch.target, StdioLaunch)
    assert launch.target.args == (
        "brave",
        "--key",
        "sk-live-123456",
        "--x=sk-live-123456",
        "${UNKNOWN}",
    )
    assert launch.redact(" ".join(launch.target.args)).count("••••") == 2
    http_config = ServerConfig(
        "zap",
        "http",
        True,
        secrets=("api_key", "Authorization"),
        url="https://h/mcp?api_key=${api_key}",
    )
    store = DictSecrets({"mcp/zap/api_key": "abcd1234", "mcp/zap/Authorization": "Bearer b"})
    launch = build_launch(http_config, store)
    # a secret of the URL is not sent again as a header
    assert launch.target == HttpLaunch(
        "https://h/mcp?api_key=abcd1234", {"Authorization": "Bearer b"}
    )
    assert launch.redact("impossible de joindre https://h/mcp?api_key=abcd1234") == (
        "impossible de joindre https://h/mcp?api_key=••••"
    )


def test_oauth_settings_round_trip_and_bad_ones_are_refused() -> None:
    from loki_desktop.core.mcp.config import OAuthConfig, parse_entry

    entry = {
        "enabled": True,
        "url": "https://api.example/mcp",
        "oauth": {"client_id": "loki", "scope": "read write", "grant": "client_credentials"},
    }
    notices: list[str] = []
    config = parse_entry("api", entry, frozenset(), notices)
    assert config.oauth == OAuthConfig("loki", "read write", "client_credentials")
    assert config.to_json()["oauth"] == entry["oauth"]
    again = parse_entry("api", config.to_json(), frozenset(), notices)
    assert again.oauth == config.oauth
    for bad in (
        {"grant": "password"},
        {"client_metadata_url": "http://plain.example/doc.json"},
        {"client_id": 3},
        "loki",
    ):
        with pytest.raises(McpConfigError):
            parse_entry("api", {**entry, "oauth": bad}, frozenset(), notices)
    assert notices == []


def test_the_browsers_navigate_tool_tells_where_the_workspace_is_served() -> None:
    specs = [
        ToolSpec("mcp_playwright_browser_navigate", "Navigate to a URL", {}, "playwright"),
        ToolSpec("mcp_playwright_browser_click", "Click", {}, "playwright"),
        ToolSpec("read_file", "Read a file", {}),
    ]
    told = with_preview(specs, "http://127.0.0.1:4321/")
    assert told[0].description.startswith("Navigate to a URL\n")
    assert "http://127.0.0.1:4321/index.html" in told[0].description
    assert "file://" in told[0].description
    assert told[1:] == specs[1:]
    assert browser_enabled({"playwright": {"enabled": True}})
    assert not browser_enabled({"playwright": {"enabled": False}})
    assert not browser_enabled({})
