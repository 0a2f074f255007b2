"""`loki-desktop ask` and `loki-desktop mcp` as child processes, with real MCP servers."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import PYTHON, cli_env
from tests.fakes.mcp_servers import TAG_VARIABLE, processes_tagged, script
from tests.fakes.ollama_server import FakeOllama, Reply

FILE_KEYRING = "tests.fakes.memory_keyring.FileKeyring"


def loki(
    home: Path, *args: str, env: dict[str, str] | None = None, python_flags: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, *python_flags, "-m", "loki_desktop", *args],
        env=cli_env(home, **(env or {})),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def write_servers(home: Path, servers: dict[str, Any]) -> None:
    (home / "settings.json").write_text(json.dumps({"mcp_servers": servers}))


def echo_entry(name: str = "echo", enabled: bool = True, tag: str = "") -> dict[str, Any]:
    entry = {"enabled": enabled, "label": name, "command": [sys.executable, script(name)]}
    if tag:  # an environment variable of the server, to find its process afterwards
        entry["params"] = {TAG_VARIABLE: tag}
    return entry


def files_containing(folder: Path, text: str) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and text.encode() in p.read_bytes()]


def imported_modules(importtime_stderr: str) -> set[str]:
    """Module names from `python -X importtime` output."""
    names = set()
    for line in importtime_stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def test_ask_with_no_server_on_sends_no_mcp_tool_and_never_imports_mcp(
    loki_home: Path, ollama: FakeOllama, workspace: Path
) -> None:
    write_servers(
        loki_home,
        {"echo": echo_entry(enabled=False), "fetch": {"enabled": False}},
    )
    ollama.script(Reply.text("Bonjour."))
    done = loki(
        loki_home,
        "ask",
        "--json",
        "--host",
        ollama.url,
        "--workspace",
        str(workspace),
        "Salut",
        python_flags=("-X", "importtime"),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    modules = imported_modules(done.stderr)
    assert "loki_desktop.core.mcp.manager" in modules  # the check sees our modules...
    assert not {m for m in modules if m == "mcp" or m.startswith(("mcp.", "mcp_"))}  # ...not mcp
    tools = [t["function"]["name"] for t in ollama.chat_requests[0].get("tools", [])]
    assert tools  # the native tools are there
    assert not [name for name in tools if name.startswith("mcp_")]
    assert [e["type"] for e in events(done.stdout)] == ["token", "done"]


def test_ask_calls_a_custom_echo_server_and_the_model_reads_the_result(
    loki_home: Path, ollama: FakeOllama, workspace: Path
) -> None:
    tag = uuid.uuid4().hex
    added = loki(
        loki_home,
        "mcp",
        "add",
        "echo",
        "--command",
        f"{sys.executable} {script('echo')}",
        "--env",
        f"{TAG_VARIABLE}={tag}",
        "--enable",
    )
    assert added.returncode == 0, added.stderr
    tested = loki(loki_home, "mcp", "test", "echo")
    assert tested.returncode == 0, tested.stderr
    assert "→ echo" in tested.stdout
    ollama.script(
        Reply.tools(("mcp_echo_echo", {"text": "bonjour"}), ("mcp_echo_big", {"size": 20_000})),
        Reply.text("Fini."),
    )
    # a loaded machine may start the server past ask's default 10 s wait: give it a minute
    done = loki(
        loki_home,
        "ask",
        "--json",
        "--mcp-wait",
        "60",
        "--host",
        ollama.url,
        "--workspace",
        str(workspace),
        "Écho ?",
    )
    assert done.returncode == 0, done.stderr[-2000:]
    results = [e for e in events(done.stdout) if e["type"] == "tool_result"]
    assert [(r["name"], r["ok"]) for r in results] == [
        ("mcp_echo_echo", True),
        ("mcp_echo_big", True),
    ]
    first, second = ollama.chat_requests
    assert "mcp_echo_echo" in [t["function"]["name"] for t in first["tools"]]
    echoed, big = [m["content"] for m in second["messages"] if m["role"] == "tool"]
    assert echoed == "echo: bonjour"
    # a long result reaches the model cut at 8,000 characters, saying so
    assert len(big) == 8_000
    assert big.endswith("more characters not shown ...]")
    assert processes_tagged(tag) == []


def test_ask_goes_on_when_servers_exit_or_never_answer(
    loki_home: Path, ollama: FakeOllama, workspace: Path
) -> None:
    tag = uuid.uuid4().hex
    write_servers(
        loki_home,
        {
            "dead": echo_entry("exits_at_once", tag=tag),
            "mute": echo_entry("never_answers", tag=tag),
        },
    )
    ollama.script(Reply.text("Je réponds quand même."))
    started = time.monotonic()
    done = loki(
        loki_home, "ask", "--json", "--host", ollama.url, "--workspace", str(workspace), "Salut"
    )
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-2000:]
    # the turn did not wait for the mute server's handshake (a minute): it waited its 10 s,
    # then went on (the bound leaves room for a loaded machine, not for the handshake)
    assert elapsed < 45
    lines = events(done.stdout)
    notices = [e["message"] for e in lines if e["type"] == "notice"]
    assert any("« exits_at_once »" in n and "fatal: API_KEY is not set" in n for n in notices)
    assert any("« never_answers »" in n for n in notices)
    assert lines[-1] == {
        "type": "done",
        "reason": "completed",
        "session": lines[-1]["session"],
        "stats": lines[-1]["stats"],
    }
    assert processes_tagged(tag) == []  # no orphan: the stuck server was stopped at exit


def test_secrets_from_set_and_import_stay_out_of_loki_home(loki_home: Path, tmp_path: Path) -> None:
    keyring_file = tmp_path / "keyring.json"  # the test keyring, outside $LOKI_HOME
    env = {"PYTHON_KEYRING_BACKEND": FILE_KEYRING, "LOKI_TEST_KEYRING_FILE": str(keyring_file)}
    done = loki(loki_home, "mcp", "set", "context7", "CONTEXT7_API_KEY=ctx7sk-e2e-secret", env=env)
    assert done.returncode == 0, done.stderr
    assert "ctx7sk-e2e-secret" not in done.stdout + done.stderr
    source = tmp_path / "claude.json"
    source.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "gh": {"command": "npx", "env": {"GITHUB_TOKEN": "ghp-e2e-secret", "X": "1"}},
                    "api": {
                        "url": "https://example.com/mcp",
                        "headers": {"Authorization": "B e2e"},
                    },
                }
            }
        )
    )
    imported = loki(loki_home, "mcp", "import", str(source), env=env)
    assert imported.returncode == 0, imported.stderr
    listed = loki(loki_home, "mcp", "list", "--json", env=env)
    servers = {s["id"]: s for s in json.loads(listed.stdout)}
    assert servers["context7"]["secrets"] == {"CONTEXT7_API_KEY": True}
    assert servers["gh"]["secrets"] == {"GITHUB_TOKEN": True}
    assert servers["gh"]["params"] == {"X": "1"}
    assert not servers["gh"]["enabled"]
    for secret in ("ctx7sk-e2e-secret", "ghp-e2e-secret", "B e2e"):
        assert secret not in listed.stdout
        assert files_containing(loki_home, secret) == []
        assert secret in keyring_file.read_text()


@pytest.mark.parametrize("action", ["set", "import"])
def test_without_a_keyring_setting_a_secret_fails_clearly_and_writes_nothing(
    loki_home: Path, tmp_path: Path, action: str
) -> None:
    env = {"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    if action == "set":
        done = loki(loki_home, "mcp", "set", "context7", "CONTEXT7_API_KEY=nowhere-1", env=env)
    else:
        source = tmp_path / "c.json"
        source.write_text(
            json.dumps({"mcpServers": {"a": {"command": "x", "env": {"API_KEY": "nowhere-2"}}}})
        )
        done = loki(loki_home, "mcp", "import", str(source), env=env)
    assert done.returncode == 1
    assert "trousseau" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (loki_home / "settings.json").exists()
    assert files_containing(loki_home, "nowhere") == []


def test_mcp_commands_in_process(
    loki_home: Path, capsys: pytest.CaptureFixture[str], memory_keyring: object
) -> None:
    from loki_desktop.app import main

    assert (
        main(
            [
                "mcp",
                "add",
                "web",
                "--url",
                "http://127.0.0.1:9/mcp",
                "--header",
                "X-T: 1",
                "--header",
                "Authorization: Bearer abc",
            ]
        )
        == 0
    )
    assert main(["mcp", "enable", "web"]) == 0
    assert main(["mcp", "enable", "searxng"]) == 0
    out = capsys.readouterr()
    assert "SEARXNG_URL" in out.err  # enabled, with a warning saying what is missing
    assert main(["mcp", "list"]) == 0
    listing = capsys.readouterr().out
    assert "web" in listing
    assert "Authorization=•••• (trousseau)" in listing
    assert "Bearer abc" not in listing
    assert "X-T=•••• (trousseau)" in listing  # a header's value is a secret (issue 34)
    assert main(["mcp", "test", "web"]) == 1
    assert "joindre http://127.0.0.1:9/mcp" in capsys.readouterr().err
    assert main(["mcp", "set", "web", "X-T="]) == 0
    assert main(["mcp", "disable", "web"]) == 0
    assert main(["mcp", "remove", "web"]) == 0
    assert main(["mcp", "remove", "fetch"]) == 1
    assert main(["mcp", "add", "Bad_Name", "--command", "x"]) == 1
    assert main(["mcp", "add", "x", "--command", "x", "--header", "A: b"]) == 1
    errors = capsys.readouterr().err
    assert "catalogue" in errors
    assert "bad-name" in errors  # the suggested id
    settings = json.loads((loki_home / "settings.json").read_text())
    assert "web" not in settings["mcp_servers"]
    assert settings["mcp_servers"]["searxng"]["enabled"] is True


def test_secrets_in_a_command_or_url_are_moved_to_the_keyring_and_masked(
    loki_home: Path, capsys: pytest.CaptureFixture[str], memory_keyring: object
) -> None:
    from loki_desktop.app import main

    url = "http://127.0.0.1:9/mcp?token=qs-e2e-31337"
    assert main(["mcp", "add", "web", "--url", url]) == 0
    assert main(["mcp", "add", "cmd", "--command", "npx -y srv --api-key sk-e2e-4242"]) == 0
    added = capsys.readouterr().out
    assert "token rangé dans le trousseau système" in added
    assert "API_KEY rangé dans le trousseau système" in added
    assert main(["mcp", "list"]) == 0
    assert main(["mcp", "list", "--json"]) == 0
    listing = capsys.readouterr().out
    assert "http://127.0.0.1:9/mcp?token=${token}" in listing
    assert "npx -y srv --api-key ${API_KEY}" in listing
    assert main(["mcp", "test", "web"]) == 1
    failed = capsys.readouterr()
    assert "joindre http://127.0.0.1:9/mcp?token=••••" in failed.err
    for secret in ("qs-e2e-31337", "sk-e2e-4242"):
        assert secret not in listing + failed.out + failed.err
        assert files_containing(loki_home, secret) == []


def test_mcp_list_shows_the_cost_in_tokens_measured_by_the_last_test(
    loki_home: Path, capsys: pytest.CaptureFixture[str], memory_keyring: object
) -> None:
    from loki_desktop.app import main

    assert main(["mcp", "add", "echo", "--command", f"{sys.executable} {script('echo')}"]) == 0
    assert main(["mcp", "list"]) == 0
    assert "jetons" not in capsys.readouterr().out  # nothing measured yet
    assert main(["mcp", "test", "echo"]) == 0
    tested = capsys.readouterr().out
    assert "jetons" in tested
    assert main(["mcp", "list"]) == 0
    listing = capsys.readouterr().out
    line = next(line for line in listing.splitlines() if "coût" in line)
    assert "7 outils" in line
    assert "jetons par requête" in line
    assert main(["mcp", "list", "--json"]) == 0
    echo = next(s for s in json.loads(capsys.readouterr().out) if s["id"] == "echo")
    assert echo["measured"]["tools"] == 7
    assert echo["measured"]["tokens"] > 0


def test_the_expose_filter_from_the_cli_and_each_tools_cost(
    loki_home: Path, capsys: pytest.CaptureFixture[str], memory_keyring: object
) -> None:
    from loki_desktop.app import main

    command = [sys.executable, script("echo")]
    assert main(["mcp", "add", "echo", "--expose", "echo,env", "--", *command]) == 0
    assert json.loads((loki_home / "settings.json").read_text())["mcp_servers"]["echo"][
        "expose"
    ] == ["echo", "env"]
    capsys.readouterr()
    assert main(["mcp", "tools", "echo", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    by_name = {tool["name"]: tool for tool in listed["tools"]}
    assert len(by_name) == 7  # every tool the server offers, exposed or not
    assert {name for name, tool in by_name.items() if tool["exposed"]} == {"echo", "env"}
    assert all(tool["tokens"] > 0 for tool in by_name.values())
    # the request's cost is that of the exposed tools only
    assert listed["tokens"] == by_name["echo"]["tokens"] + by_name["env"]["tokens"]

    assert main(["mcp", "set", "echo", "--expose", "echo,nope"]) == 0
    capsys.readouterr()
    assert main(["mcp", "tools", "echo"]) == 0
    shown = capsys.readouterr()
    assert "✓ echo" in shown.out
    assert "· env" in shown.out
    assert "nope" in shown.err  # a name the server does not offer is said

    assert main(["mcp", "set", "echo", "--expose", "*"]) == 0
    assert (
        "expose" not in json.loads((loki_home / "settings.json").read_text())["mcp_servers"]["echo"]
    )
    assert main(["mcp", "set", "echo"]) == 1  # nothing to set: said, nothing written


def test_a_servers_call_limits_from_the_cli(
    loki_home: Path, capsys: pytest.CaptureFixture[str], memory_keyring: object
) -> None:
    from loki_desktop.app import main

    def entry() -> dict[str, Any]:
        return json.loads((loki_home / "settings.json").read_text())["mcp_servers"]["long"]

    assert main(["mcp", "add", "long", "--timeout", "120", "--", "srv"]) == 0
    assert entry()["timeout"] == 120.0
    assert "max_timeout" not in entry()
    assert main(["mcp", "set", "long", "--max-timeout", "900"]) == 0
    assert (entry()["timeout"], entry()["max_timeout"]) == (120.0, 900.0)  # the other stays
    assert "900 s en tout" in capsys.readouterr().out
    assert main(["mcp", "set", "long", "--timeout", "default"]) == 0
    assert "timeout" not in entry()
    assert main(["mcp", "set", "long", "--timeout", "soon"]) == 1
    assert "--timeout" in capsys.readouterr().err
    assert entry()["max_timeout"] == 900.0  # nothing written by the refused change


def test_mcp_install_shows_the_bundle_then_adds_it(
    loki_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], memory_keyring: object
) -> None:
    from loki_desktop.app import main
    from tests.fakes.mcpb import SECRET, manifest, pack

    bundle = pack(tmp_path / "echo.mcpb", manifest())
    assert main(["mcp", "install", str(bundle), "--set", f"api_key={SECRET}", "--enable"]) == 0
    shown = capsys.readouterr().out
    assert "Echo Bundle 1.2.0, par Loki tests" in shown
    assert "Outils annoncés : echo, env" in shown
    assert "secret, rangé dans le trousseau" in shown  # what it asks for, before installing
    assert "echo-bundle installé (activé)" in shown
    assert main(["mcp", "list"]) == 0
    assert SECRET not in capsys.readouterr().out
    assert main(["mcp", "install", str(tmp_path / "missing.mcpb")]) == 1
    assert "Paquet illisible" in capsys.readouterr().err
    assert main(["mcp", "remove", "echo-bundle"]) == 0
    assert not (loki_home / "mcp-bundles" / "echo-bundle").exists()
