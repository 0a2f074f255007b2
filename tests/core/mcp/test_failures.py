"""Every way a server can fail: the turn goes on, the user is told once, nothing is left running."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable

import pytest

from loki_desktop.core.mcp.config import ServerConfig
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.core.mcp.status import ServerStatus
from loki_desktop.persistence.secrets import KeyringSecrets
from tests.core.mcp.conftest import stdio
from tests.fakes.mcp_servers import processes_tagged, servers_tagged, zombie_children

pytestmark = pytest.mark.usefixtures("no_zombies")


async def _eventually(condition: Callable[[], bool], within_s: float = 30) -> bool:
    deadline = time.monotonic() + within_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


def _only(notices: list[str], name: str) -> str:
    matching = [n for n in notices if f"« {name} »" in n]
    assert len(matching) == 1, notices
    return matching[0]


async def test_startup_failures_are_told_once_each_and_clean(
    secrets: KeyringSecrets, tag: str
) -> None:
    servers = {
        "missing": ServerConfig("missing", "stdio", True, command=("/nonexistent/mcp-server",)),
        "nonode": ServerConfig("nonode", "stdio", True, command=("npx-that-does-not-exist",)),
        "exits": stdio("exits", "exits_at_once", tag=tag),
        "mute": stdio("mute", "never_answers", tag=tag),
        "junk": stdio("junk", "junk_stdout", tag=tag),
        "nohttp": ServerConfig("nohttp", "http", True, url="http://127.0.0.1:9/mcp"),
        "ok": stdio("ok", "echo", tag=tag),
    }
    manager = McpManager(servers, secrets, handshake_timeout=1.5, connect_wait=8, backoff=(60,))
    started = time.monotonic()
    notices = await manager.prepare()
    waited = time.monotonic() - started
    try:
        assert waited < 8  # every failure was known before the wait ran out
        assert "introuvable" in _only(notices, "missing")
        assert "/nonexistent/mcp-server" in _only(notices, "missing")
        exits = _only(notices, "exits")
        assert "arrêté au démarrage" in exits
        assert "fatal: API_KEY is not set" in exits  # the last lines of its stderr
        assert "ne répond pas" in _only(notices, "mute")
        assert "Hello! Server listening on port 3000" in _only(notices, "junk")
        assert "joindre http://127.0.0.1:9/mcp" in _only(notices, "nohttp")
        assert not any("« ok »" in n for n in notices)
        states = {s.id: s.state for s in manager.statuses()}
        assert states == {**dict.fromkeys(servers, "error"), "ok": "connected"}
        assert manager.status("mute").message.startswith("Le serveur ne répond pas")
        # the healthy server is usable while the others are down
        assert (await manager.call("mcp_ok_echo", {"text": "x"})).ok
        assert {s.source for s in manager.specs()} == {"ok"}
        # told once: the next message says nothing more (retries wait for the backoff)
        assert await manager.prepare() == []
    finally:
        await manager.aclose()
    assert processes_tagged(tag) == []


async def test_a_server_still_starting_does_not_hold_the_turn(
    secrets: KeyringSecrets, tag: str
) -> None:
    manager = McpManager(
        {"mute": stdio("mute", "never_answers", tag=tag)}, secrets, connect_wait=0.5
    )
    started = time.monotonic()
    notices = await manager.prepare()
    assert time.monotonic() - started < 3
    assert "démarre encore" in _only(notices, "mute")
    # the check does see a live server (started by the supervisor, maybe not yet)
    assert await _eventually(lambda: len(servers_tagged(tag)) == 1)
    assert manager.status("mute").state == "connecting"
    assert manager.specs() == []
    assert await manager.prepare() == []  # not waited for again, not told again
    await manager.aclose()  # closing a server stuck in its handshake is bounded
    assert processes_tagged(tag) == []


async def test_a_failing_server_is_retried_with_backoff(secrets: KeyringSecrets, tag: str) -> None:
    manager = McpManager(
        {"exits": stdio("exits", "exits_at_once", tag=tag)}, secrets, backoff=(0.6, 60)
    )
    events: list[ServerStatus] = []
    manager.subscribe(events.append)
    try:
        assert len(await manager.prepare()) == 1
        attempts = [e for e in events if e.state == "connecting"]
        assert len(attempts) == 1
        assert await manager.prepare() == []  # too early: no new attempt
        assert len([e for e in events if e.state == "connecting"]) == 1
        await asyncio.sleep(0.7)
        assert await manager.prepare() == []  # retried, failed again, not told again
        assert len([e for e in events if e.state == "connecting"]) == 2
        assert manager.status("exits").state == "error"
    finally:
        await manager.aclose()


async def test_a_crash_during_a_call_fails_the_call_and_the_server_comes_back(
    secrets: KeyringSecrets, tag: str
) -> None:
    manager = McpManager({"echo": stdio("echo", "echo", tag=tag)}, secrets, backoff=(0,))
    try:
        assert await manager.prepare() == []
        outcome = await manager.call("mcp_echo_crash", {})
        assert not outcome.ok
        assert "stopped during the call" in outcome.output
        await _until(lambda: manager.status("echo").state == "error")
        assert "crashing on purpose" in manager.status("echo").message
        assert manager.specs() == []
        notices = await manager.prepare()  # told once, and restarted at once (no backoff)
        assert "arrêté" in _only(notices, "echo")
        assert manager.status("echo").state == "connected"
        assert (await manager.call("mcp_echo_echo", {"text": "revenu"})).output == "echo: revenu"
    finally:
        await manager.aclose()
    assert processes_tagged(tag) == []


async def test_a_call_past_its_timeout_fails_and_the_server_restarts(
    secrets: KeyringSecrets, tag: str
) -> None:
    manager = McpManager(
        {"echo": stdio("echo", "echo", tag=tag)}, secrets, call_timeout=0.5, backoff=(0,)
    )
    try:
        await manager.prepare()
        started = time.monotonic()
        outcome = await manager.call("mcp_echo_slow", {"seconds": 30})
        assert time.monotonic() - started < 5
        assert not outcome.ok
        assert "did not answer within 0.5 s" in outcome.output
        assert manager.status("echo").state == "error"
        assert "slow" in manager.status("echo").message
        notices = await manager.prepare()
        assert "dépassé" in _only(notices, "echo")
        assert manager.status("echo").state == "connected"
    finally:
        await manager.aclose()
    assert processes_tagged(tag) == []


async def test_turning_a_server_off_stops_it_and_removes_its_tools(
    secrets: KeyringSecrets, tag: str
) -> None:
    config = stdio("echo", "echo", tag=tag)
    manager = McpManager({"echo": config}, secrets)
    events: list[ServerStatus] = []
    manager.subscribe(events.append)
    try:
        await manager.prepare()
        assert manager.specs()
        manager.reload({"echo": ServerConfig("echo", "stdio", False, command=config.command)})
        assert manager.specs() == []
        assert manager.status("echo").state == "inactive"
        assert events[-1].state == "inactive"
        assert len(servers_tagged(tag)) == 1  # closing in the background
        await manager.settle()
        assert processes_tagged(tag) == []
        manager.reload({"echo": config})
        await manager.prepare()
        assert manager.status("echo").state == "connected"
    finally:
        await manager.aclose()


async def test_test_connects_apart_from_the_live_session(secrets: KeyringSecrets, tag: str) -> None:
    config = stdio("echo", "echo", tag=tag, expose=("echo",))
    manager = McpManager({"echo": config}, secrets)
    try:
        await manager.prepare()
        events: list[ServerStatus] = []
        manager.subscribe(events.append)
        result = await manager.test(config)
        assert result.ok
        assert set(result.tools) == {"echo", "env", "header", "big", "slow", "fail", "crash"}
        assert result.exposed == ("echo",)
        assert result.schema_chars == manager.status("echo").schema_chars
        assert events == []  # the live session was not touched
        failed = await manager.test(stdio("exits", "exits_at_once", tag=tag))
        assert not failed.ok
        assert "fatal: API_KEY is not set" in failed.message
        missing = await manager.test(ServerConfig("searxng", "catalogue", True))
        assert (missing.ok, "SEARXNG_URL" in missing.message) == (False, True)
    finally:
        await manager.aclose()
    assert processes_tagged(tag) == []
    assert zombie_children(os.getpid()) == []


async def test_a_servers_error_output_is_shown_with_its_secrets_masked(
    secrets: KeyringSecrets, tag: str
) -> None:
    secrets.set("mcp/exits/API_KEY", "sk-said-on-stderr")
    config = stdio("exits", "exits_at_once", tag=tag, secrets=("API_KEY",))
    manager = McpManager({"exits": config}, secrets, backoff=(60,))
    try:
        (notice,) = await manager.prepare()
        message = manager.status("exits").message
        tested = await manager.test(config)
    finally:
        await manager.aclose()
    for text in (notice, message, tested.message):
        assert "fatal: API_KEY •••• was refused" in text
        assert "sk-said-on-stderr" not in text
    assert processes_tagged(tag) == []


async def _until(condition: object, limit_s: float = 5.0) -> None:
    deadline = time.monotonic() + limit_s
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)
