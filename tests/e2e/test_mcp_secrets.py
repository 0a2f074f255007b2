"""Secrets told by their value, not only their name: each finding of the adversarial pass.

Every case goes through the CLI (in process, on the real settings file and the real keyring
adapter over the in-memory backend), then checks that settings.json and every output of
`mcp list` / `mcp list --json` hold no secret value, and that the keyring does.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import keyring
import pytest
from keyring.backends import fail

from loki_desktop.app import main
from loki_desktop.core.mcp.catalogue import CATALOGUE_IDS
from loki_desktop.core.mcp.config import ServerConfig, parse_servers
from loki_desktop.core.mcp.launch import StdioLaunch, build_launch
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.core.mcp.service import McpService
from loki_desktop.persistence.paths import data_home
from loki_desktop.persistence.secrets import KeyringSecrets
from loki_desktop.persistence.settings_file import SettingsFile
from tests.fakes.mcp_servers import script
from tests.fakes.memory_keyring import MemoryKeyring


def files_containing(folder: Path, text: str) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and text.encode() in p.read_bytes()]


def listing(capsys: pytest.CaptureFixture[str]) -> str:
    """Everything `mcp list` and `mcp list --json` print (both streams)."""
    capsys.readouterr()
    assert main(["mcp", "list"]) == 0
    assert main(["mcp", "list", "--json"]) == 0
    out = capsys.readouterr()
    return out.out + out.err


def assert_hidden(home: Path, keyring_backend: MemoryKeyring, shown: str, *values: str) -> None:
    for value in values:
        assert value not in shown, value
        assert files_containing(home, value) == [], value
        # in the keyring (a parameter moves whole: `NOTE=token glpat-…`)
        assert any(value in stored for stored in keyring_backend.values.values()), value


def stored(server_id: str) -> ServerConfig:
    """A server's config as settings.json holds it (views are masked: not those)."""
    settings = SettingsFile(data_home() / "settings.json").load()
    return parse_servers(settings.mcp_servers, CATALOGUE_IDS)[0][server_id]


def service() -> McpService:
    return McpService(SettingsFile(data_home() / "settings.json"), KeyringSecrets())


# --- the findings, one by one -------------------------------------------------------------------


def test_a_password_inside_a_url_parameter_or_environment_value(
    loki_home: Path, memory_keyring: MemoryKeyring, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["mcp", "set", "searxng", "SEARXNG_URL=http://me:searx-pw-1@127.0.0.1:8888"]) == 0
    db_url = "postgres://app:db-pw-2222@db.example/prod"
    assert main(["mcp", "add", "db", "--command", "srv", "--env", f"DB_URL={db_url}"]) == 0
    said = capsys.readouterr()
    shown = said.out + said.err + listing(capsys)
    assert_hidden(loki_home, memory_keyring, shown, "searx-pw-1", "db-pw-2222")
    # the server still gets the whole value
    launch = build_launch(stored("db"), KeyringSecrets())
    assert isinstance(launch.target, StdioLaunch)
    assert launch.target.env["DB_URL"] == db_url
    searxng = build_launch(stored("searxng"), KeyringSecrets())
    assert isinstance(searxng.target, StdioLaunch)
    assert searxng.target.env["SEARXNG_URL"] == "http://me:searx-pw-1@127.0.0.1:8888"


def test_names_outside_the_old_rule(
    loki_home: Path, memory_keyring: MemoryKeyring, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            [
                "mcp",
                "add",
                "gh",
                "--command",
                "srv",
                "--env",
                "GH_PAT=pat-value-3",
                "--env",
                "AUTH=auth-value-4",
                "--env",
                "AUTH_USERNAME=alice",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "mcp",
                "add",
                "web",
                "--url",
                "http://127.0.0.1:9/mcp",
                "--header",
                "X-Auth: xauth-value-5",
            ]
        )
        == 0
    )
    shown = capsys.readouterr().out + listing(capsys)
    assert_hidden(loki_home, memory_keyring, shown, "pat-value-3", "auth-value-4", "xauth-value-5")
    assert "AUTH_USERNAME=alice" in shown  # a user name is not a secret


def test_values_after_flags_in_a_command(
    loki_home: Path, memory_keyring: MemoryKeyring, capsys: pytest.CaptureFixture[str]
) -> None:
    command = "srv --auth sk-flagvalue-6666 -p pass-value-7 --port 8080"
    assert main(["mcp", "add", "cmd", "--command", command]) == 0
    shown = capsys.readouterr().out + listing(capsys)
    assert_hidden(loki_home, memory_keyring, shown, "sk-flagvalue-6666", "pass-value-7")
    assert "--port 8080" in shown
    config = stored("cmd")
    assert config.command == ("srv", "--auth", "${AUTH}", "-p", "${PASSWORD}", "--port", "8080")


def test_import_of_a_dsn_password_and_an_mcp_remote_header(
    loki_home: Path,
    tmp_path: Path,
    memory_keyring: MemoryKeyring,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = tmp_path / "claude.json"
    source.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "postgres": {
                        "command": "npx",
                        "args": [
                            "-y",
                            "@modelcontextprotocol/server-postgres",
                            "postgresql://app:dsn-pw-8888@localhost/mydb",
                        ],
                    },
                    "remote": {
                        "command": "npx",
                        "args": [
                            "mcp-remote",
                            "https://remote.example/mcp",
                            "--header",
                            "Authorization: Bearer remote-token-9999",
                        ],
                    },
                }
            }
        )
    )
    assert main(["mcp", "import", str(source)]) == 0
    shown = capsys.readouterr().out + listing(capsys)
    assert_hidden(loki_home, memory_keyring, shown, "dsn-pw-8888", "remote-token-9999")
    assert "postgresql://app:${" in shown  # only the password left the DSN
    remote = stored("remote")
    assert remote.command[-2:] == ("--header", "Authorization: ${AUTHORIZATION}")


def test_well_known_token_shapes_anywhere(
    loki_home: Path, memory_keyring: MemoryKeyring, capsys: pytest.CaptureFixture[str]
) -> None:
    ghp = "ghp_" + "a1B2c3D4" * 4 + "e5F6"
    fine_grained = "github_pat_11ABCDEFG0123456789_abcdefghij"
    glpat = "glpat-abcdefghij0123456789"
    slack = "xoxb-1234567890-abcdefghij"
    aws = "AKIAIOSFODNN7EXAMPLE"
    jwt = (
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
    )
    openai = "sk-proj-abcdefghijklmnop1234"
    assert (
        main(
            [
                "mcp",
                "add",
                "shapes",
                "--command",
                f"srv {ghp} --repo x --key-file=/k",
                "--env",
                f"GITHUB={fine_grained}",
                "--env",
                f"NOTE=token {glpat}",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "mcp",
                "add",
                "shapes2",
                "--command",
                f"srv --workspace {slack}",
                "--env",
                f"ID={aws}",
                "--env",
                f"OPENAI={openai}",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "mcp",
                "add",
                "jwt",
                "--url",
                f"https://h.example/mcp/{jwt}",
                "--header",
                "X-Api: Bearer opaque-bearer-value",
            ]
        )
        == 0
    )
    shown = capsys.readouterr().out + listing(capsys)
    assert_hidden(
        loki_home,
        memory_keyring,
        shown,
        ghp,
        fine_grained,
        glpat,
        slack,
        aws,
        jwt,
        openai,
        "opaque-bearer-value",
    )


def test_secrets_written_by_hand_or_by_an_older_version_are_masked_in_every_output(
    loki_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (loki_home / "settings.json").write_text(
        json.dumps(
            {
                "mcp_servers": {
                    "searxng": {"enabled": True, "params": {"SEARXNG_URL": "http://u:old-pw-1@h"}},
                    "old": {
                        "enabled": True,
                        "label": "old",
                        "command": [
                            "srv",
                            "--auth",
                            "sk-oldversion-2",
                            "-p",
                            "oldpass-3",
                            "postgres://u:old-dsn-4@h/db",
                        ],
                    },
                    "oldweb": {"url": "https://u:old-url-5@h.example/mcp?token=old-qs-6"},
                }
            }
        )
    )
    shown = listing(capsys)
    for value in ("old-pw-1", "sk-oldversion-2", "oldpass-3", "old-dsn-4", "old-url-5", "old-qs-6"):
        assert value not in shown, value
    assert "••••" in shown


def test_errors_never_echo_a_secret(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcp", "add", "a", "--url", "ftp://me:url-pw-1234@h.example/mcp"]) == 1
    assert main(["mcp", "add", "b", "--url", "http://h/mcp", "--header", "X-Auth hdr-pw-5678"]) == 1
    assert main(["mcp", "add", "c", "--command", "srv --token 'tok-pw-9012"]) == 1
    said = capsys.readouterr()
    assert said.err.count("\n") >= 3
    for value in ("url-pw-1234", "hdr-pw-5678", "tok-pw-9012"):
        assert value not in said.out + said.err, said.err


# --- without a keyring ------------------------------------------------------------------------


def test_import_without_a_keyring_adds_the_servers_without_secrets_and_lists_the_others(
    loki_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keyring.set_keyring(fail.Keyring())
    source = tmp_path / "claude.json"
    source.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "plain": {"command": sys.executable, "args": [script("echo")]},
                    "keyed": {"command": "srv", "env": {"API_KEY": "nowhere-1"}},
                    "dsn": {"command": "srv", "args": ["postgres://u:nowhere-2@h/db"]},
                }
            }
        )
    )
    assert main(["mcp", "import", str(source)]) == 0
    said = capsys.readouterr()
    assert "plain ajouté" in said.out
    assert "« keyed »" in said.err
    assert "« dsn »" in said.err
    assert "trousseau" in said.err
    saved = json.loads((loki_home / "settings.json").read_text())["mcp_servers"]
    assert set(saved) == {"plain"}
    assert files_containing(loki_home, "nowhere") == []
    assert "nowhere" not in said.out + said.err


async def test_secrets_moved_out_of_a_command_reach_the_server_in_place() -> None:
    mcp = service()
    mcp.add_stdio(
        "args",
        [
            sys.executable,
            script("launch_echo"),
            "--auth",
            "sk-reach-1234",
            "-p",
            "pass-reach-5",
            "postgres://app:dsn-reach-6@h/db",
            "--header",
            "Authorization: Bearer hdr-reach-7",
        ],
        enabled=True,
    )
    assert "reach" not in json.dumps(mcp.server("args").config.to_json())
    settings = SettingsFile(data_home() / "settings.json").load()
    # a generous wait for the start: the suite runs on loaded machines
    manager = McpManager.from_settings(settings.mcp_servers, KeyringSecrets(), connect_wait=60)
    try:
        assert await manager.prepare() == []
        argv = await manager.call("mcp_args_argv", {})
    finally:
        await manager.aclose()
    # each exact value came back in its place (then masked for the model), no placeholder left
    assert argv.output == (
        "--auth •••• -p •••• postgres://app:••••@h/db --header Authorization: ••••"
    )


def test_a_secret_inside_a_json_string_argument(
    loki_home: Path, memory_keyring: MemoryKeyring, capsys: pytest.CaptureFixture[str]
) -> None:
    config = '{"token": "json-secret-4242", "region": "eu"}'
    assert main(["mcp", "add", "jsonarg", "--", "srv", "--config", config]) == 0
    shown = capsys.readouterr().out + listing(capsys)
    assert_hidden(loki_home, memory_keyring, shown, "json-secret-4242")
    assert '"region": "eu"' in shown  # the rest of the JSON stays readable
    assert stored("jsonarg").command[:2] == ("srv", "--config")
