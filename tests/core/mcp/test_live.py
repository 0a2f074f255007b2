"""A manager with healthy servers (stdio and streamable HTTP), shared by the module's tests."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass

import keyring
import pytest
import pytest_asyncio

from loki_desktop.core.mcp.config import ServerConfig
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.core.mcp.status import ServerStatus
from loki_desktop.core.slim import slim_spec, tools_cost
from loki_desktop.core.tools.toolbox import Toolbox
from loki_desktop.persistence.secrets import KeyringSecrets
from tests.core.mcp.conftest import stdio
from tests.fakes.memory_keyring import MemoryKeyring

pytestmark = pytest.mark.asyncio(loop_scope="module")


@dataclass
class Live:
    manager: McpManager
    notices: list[str]
    events: list[ServerStatus]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def live(http_echo: str) -> AsyncIterator[Live]:
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())  # secrets are read once, when the servers start
    try:
        secrets = KeyringSecrets()
        secrets.set("mcp/echo/API_KEY", "sk-live-123")
        secrets.set("mcp/web/Authorization", "Bearer web-456")
        servers = {
            "echo": stdio("echo", "echo", params={"MODE": "test"}, secrets=("API_KEY",)),
            "web": ServerConfig("web", "http", True, url=http_echo, secrets=("Authorization",)),
            "narrow": stdio("narrow", "echo", expose=("echo", "not-a-tool")),
            "off": stdio("off", "echo", enabled=False),
        }
        # healthy servers are the point here, not the first message's 10 s wait: a loaded
        # machine may take longer to start three Python servers (two of them over stdio)
        manager = McpManager(servers, secrets, connect_wait=120)
        events: list[ServerStatus] = []
        manager.subscribe(events.append)
        notices = await manager.prepare()
    finally:
        keyring.set_keyring(previous)
    yield Live(manager, notices, events)
    await manager.aclose()


async def test_enabled_servers_connect_in_parallel_and_report_their_cost(live: Live) -> None:
    assert live.notices == []
    status = {s.id: s for s in live.manager.statuses()}
    assert status["off"].state == "inactive"
    for server_id in ("echo", "web", "narrow"):
        assert status[server_id].state == "connected", status[server_id]
    assert status["echo"].tool_count == 7
    assert status["narrow"].tools == ("mcp_narrow_echo",)
    specs = [s for s in live.manager.specs() if s.source == "echo"]
    assert status["echo"].schema_chars == sum(
        len(json.dumps(slim_spec(s).to_ollama(), separators=(",", ":"), ensure_ascii=False))
        for s in specs
    )
    assert (status["echo"].schema_chars, status["echo"].schema_tokens) == tools_cost(specs)
    assert 0 < (status["narrow"].schema_tokens or 0) < (status["echo"].schema_tokens or 0)
    assert status["narrow"].schema_chars < status["echo"].schema_chars
    assert status["off"].schema_tokens is None
    assert [e.state for e in live.events if e.id == "echo"][-2:] == ["connecting", "connected"]


async def test_specs_are_named_per_server_and_filtered_by_expose(live: Live) -> None:
    names = {spec.name for spec in live.manager.specs()}
    assert {"mcp_echo_echo", "mcp_echo_env", "mcp_web_echo", "mcp_narrow_echo"} <= names
    assert "mcp_narrow_env" not in names
    assert not any(name.startswith("mcp_off_") for name in names)
    echo = next(s for s in live.manager.specs() if s.name == "mcp_echo_echo")
    assert slim_spec(echo).parameters == {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    }
    assert live.manager.owns("mcp_web_echo")
    assert not live.manager.owns("mcp_narrow_env")
    assert not live.manager.owns("read_file")


async def test_a_call_comes_back_as_text(live: Live) -> None:
    outcome = await live.manager.call("mcp_echo_echo", {"text": "bonjour"})
    assert outcome.ok
    assert outcome.output == "echo: bonjour"
    assert outcome.extra["mcp_server"] == "echo"
    over_http = await live.manager.call("mcp_web_echo", {"text": "par HTTP"})
    assert (over_http.ok, over_http.output) == (True, "echo: par HTTP")


async def test_secrets_reach_the_server_and_never_come_back_in_clear(live: Live) -> None:
    # The server returns exactly the secret value; the model (and history) see it masked.
    env = await live.manager.call("mcp_echo_env", {"name": "API_KEY"})
    assert env.output == "••••"
    unset = await live.manager.call("mcp_echo_env", {"name": "OTHER_KEY"})
    assert unset.output == "(unset)"
    plain = await live.manager.call("mcp_echo_env", {"name": "MODE"})
    assert plain.output == "test"
    header = await live.manager.call("mcp_web_header", {"name": "Authorization"})
    assert header.output == "••••"
    said = await live.manager.call("mcp_echo_echo", {"text": "key=sk-live-123"})
    assert said.output == "echo: key=••••"


async def test_tool_errors_are_failed_outcomes_and_the_session_goes_on(live: Live) -> None:
    failed = await live.manager.call("mcp_echo_fail", {"reason": "disque plein"})
    assert not failed.ok
    assert "disque plein" in failed.output
    invalid = await live.manager.call("mcp_echo_echo", {"wrong": 1})
    assert not invalid.ok
    known = await live.manager.call("mcp_echo_echo", {"text": "TypeError: fetch failed"})
    assert not known.ok  # is_error False, but a known failure text
    again = await live.manager.call("mcp_echo_echo", {"text": "encore"})
    assert (again.ok, again.output) == (True, "echo: encore")
    assert live.manager.status("echo").state == "connected"


async def test_long_results_are_cut_at_8000_characters_by_the_toolbox(live: Live) -> None:
    # one cap for every tool, native or MCP: the Toolbox's
    whole = await live.manager.call("mcp_echo_big", {"size": 20_000})
    assert (whole.ok, len(whole.output)) == (True, 20_000)
    outcome = await Toolbox([live.manager]).call("mcp_echo_big", {"size": 20_000})
    assert outcome.ok
    assert len(outcome.output) == 8_000
    assert outcome.output.endswith("[... output cut: 12000 more characters not shown ...]")


async def test_a_later_message_reuses_the_sessions(live: Live) -> None:
    before = len(live.events)
    assert await live.manager.prepare() == []
    assert live.events[before:] == []  # nothing restarted
    assert (await live.manager.call("mcp_narrow_echo", {"text": "x"})).ok
