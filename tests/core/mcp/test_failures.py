"""Every way a server can fail: the turn goes on, the user is told once, nothing is left running."""

from __future__ import annotations

import asyncio
import os
import time

import pytest

from loki_desktop.core.mcp.config import ServerConfig
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.core.mcp.status import ServerStatus
from loki_desktop.persistence.secrets import KeyringSecrets
from tests.core.mcp.conftest import eventually, stdio
from tests.fakes.mcp_servers import processes_tagged, servers_tagged, zombie_children

pytestmark = pytest.mark.usefixtures("no_zombies")

# Long enough for a Python server to start on a saturated machine: a test that needs a short
# handshake timeout sets it for a server that never answers, and only for that one.
SLOW_MACHINE_S = 60.0


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
        "junk": stdio("junk", "junk_stdout", tag=tag),
        "nohttp": ServerConfig("nohttp", "http", True, url="http://127.0.0.1:9/mcp"),
        "ok": stdio("ok", "echo", tag=tag),
    }
    manager = McpManager(
        servers,
        secrets,
        handshake_timeout=SLOW_MACHINE_S,
        connect_wait=SLOW_MACHINE_S,
        backoff=(60,),
    )
    notices = await manager.prepare()
    try:
        # each failure is told as itself, none as "still starting": prepare() returned once
        # every server had failed or connected, not when its wait ran out
        assert not any("démarre encore" in n for n in notices), notices
        assert "introuvable" in _only(notices, "missing")
        assert "/nonexistent/mcp-server" in _only(notices, "missing")
        exits = _only(notices, "exits")
        assert "arrêté au démarrage" in exits
        assert "fatal: API_KEY is not set" in exits  # the last lines of its stderr
        assert "Hello! Server listening on port 3000" in _only(notices, "junk")
        assert "joindre http://127.0.0.1:9/mcp" in _only(notices, "nohttp")
        assert not any("« ok »" in n for n in notices)
        states = {s.id: s.state for s in manager.statuses()}
        assert states == {**dict.fromkeys(servers, "error"), "ok": "connected"}
        # the healthy server is usable while the others are down
        assert (await manager.call("mcp_ok_echo", {"text": "x"})).ok
        assert {s.source for s in manager.specs()} == {"ok"}
        # told once: the next message says nothing more (retries wait for the backoff)
        assert await manager.prepare() == []
    finally:
        await manager.aclose()
    assert processes_tagged(tag) == []


async def test_a_server_that_never_answers_fails_at_its_handshake_timeout(
    secrets: KeyringSecrets, tag: str
) -> None:
    manager = McpManager(
        {"mute": stdio("mute", "never_answers", tag=tag)},
        secrets,
        handshake_timeout=1.0,  # alone: no healthy server has to start within it
        connect_wait=SLOW_MACHINE_S,
        backoff=(60,),
    )
    try:
        notices = await manager.prepare()
        assert "ne répond pas" in _only(notices, "mute")
        assert manager.status("mute").message.startswith("Le serveur ne répond pas")
    finally:
        await manager.aclose()
    assert processes_tagged(tag) == []


async def test_a_server_still_starting_does_not_hold_the_turn(
    secrets: KeyringSecrets, tag: str
) -> None:
    manager = McpManager(
        {"mute": stdio("mute", "never_answers", tag=tag)}, secrets, connect_wait=0.5
    )
    notices = await manager.prepare()
    # told while its handshake still runs (the default timeout is a minute away)
    assert "démarre encore" in _only(notices, "mute")
    # the check does see a live server (started by the supervisor, maybe not yet)
    assert await eventually(lambda: len(servers_tagged(tag)) == 1)
    assert manager.status("mute").state == "connecting"
    assert manager.specs() == []
    assert await manager.prepare() == []  # not waited for again, not told again
    await manager.aclose()  # closing a server stuck in its handshake is bounded
    assert processes_tagged(tag) == []


async def test_a_failing_server_is_retried_with_backoff(secrets: KeyringSecrets, tag: str) -> None:
    manager = McpManager(
        {"exits": stdio("exits", "exits_at_once", tag=tag)}, secrets, backoff=(3, 60)
    )
    events: list[ServerStatus] = []
    failed_at: list[float] = []  # when each failure was told (its retry is due 3 s later)
    manager.subscribe(events.append)
    manager.subscribe(lambda s: failed_at.append(time.monotonic()) if s.state == "error" else None)

    def attempts() -> int:
        return len([e for e in events if e.state == "connecting"])

    try:
        assert len(await manager.prepare()) == 1
        assert attempts() == 1
        asked_at = time.monotonic()
        assert await manager.prepare() == []  # too early: no new attempt
        assert attempts() == 1
        # the check above proves something only if it ran well inside the backoff
        assert asked_at - failed_at[0] < 2.5, "the machine stalled for 2.5 s: check unproven"
        # past the backoff the next message retries; the new failure is not told again
        while attempts() == 1:
            assert await manager.prepare() == []
            assert time.monotonic() - failed_at[0] < 60, "no retry after the backoff"
            await asyncio.sleep(0.05)
        await _until(lambda: manager.status("exits").state == "error")
        assert attempts() == 2
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
        outcome = await manager.call("mcp_echo_slow", {"seconds": 30})
        assert not outcome.ok  # the slow call would have succeeded after its 30 s
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


async def _until(condition: object, limit_s: float = 30.0) -> None:
    deadline = time.monotonic() + limit_s
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)
