"""Long tool calls: Loki sends a progress token, and a call that reports progress stays alive
past its limit without a sign of life (up to the server's maximum); per-server limits."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from loki_desktop.core.mcp.config import McpConfigError, ServerConfig, parse_entry, parse_seconds
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.persistence.secrets import KeyringSecrets
from tests.core.mcp.conftest import eventually, stdio
from tests.fakes.mcp_servers import processes_tagged


async def _call(config: ServerConfig, secrets: KeyringSecrets, tool: str, **args: object):
    manager = McpManager({config.id: config}, secrets, backoff=(0,))
    try:
        assert await manager.prepare() == []
        return await manager.call(f"mcp_{config.id}_{tool}", dict(args))
    finally:
        await manager.aclose()


async def test_a_call_that_reports_progress_outlives_its_limit(
    secrets: KeyringSecrets, tag: str
) -> None:
    # 10 steps of 0.3 s: 3 s in all, never 2 s without a progress report
    config = stdio("prog", "progress", tag=tag, call_timeout_s=2.0)
    outcome = await _call(config, secrets, "steps", count=10, every_s=0.3)
    assert outcome.ok, outcome.output
    assert outcome.output == "done in 10 steps"
    assert processes_tagged(tag) == []


async def test_a_silent_call_still_ends_at_the_servers_own_limit(
    secrets: KeyringSecrets, tag: str
) -> None:
    config = stdio("prog", "progress", tag=tag, call_timeout_s=1.0)
    outcome = await _call(config, secrets, "quiet", seconds=30)
    assert not outcome.ok
    assert "did not answer within 1 s" in outcome.output


async def test_progress_keeps_a_call_alive_only_up_to_the_servers_maximum(
    secrets: KeyringSecrets, tag: str
) -> None:
    # progress every 0.3 s for 30 s: alive all along, but the maximum is 3 s
    config = stdio("prog", "progress", tag=tag, call_timeout_s=2.0, call_max_s=3.0)
    outcome = await _call(config, secrets, "steps", count=100, every_s=0.3)
    assert not outcome.ok
    assert "did not answer within 3 s" in outcome.output


def test_the_limits_are_kept_in_the_settings_and_checked() -> None:
    entry = {"enabled": True, "command": ["srv"], "timeout": 120, "max_timeout": 900}
    notices: list[str] = []
    config = parse_entry("long", entry, frozenset(), notices)
    assert (config.call_timeout_s, config.call_max_s) == (120.0, 900.0)
    assert config.to_json()["timeout"] == 120.0
    assert config.to_json()["max_timeout"] == 900.0
    assert notices == []
    for bad in ("soon", 0, -5, True, 10**9):
        with pytest.raises(McpConfigError):
            parse_seconds(bad, "timeout")
        # in the settings file, a bad limit falls back to the default: the server stays
        config = parse_entry("long", {**entry, "timeout": bad}, frozenset(), notices)
        assert config.call_timeout_s is None
        assert "timeout" in notices.pop()


async def test_a_cancelled_turn_tells_the_server_its_call_is_cancelled(
    secrets: KeyringSecrets, tag: str, tmp_path: Path
) -> None:
    manager = McpManager({"prog": stdio("prog", "progress", tag=tag)}, secrets, backoff=(0,))
    try:
        assert await manager.prepare() == []
        call = asyncio.ensure_future(
            manager.call("mcp_prog_until_cancelled", {"folder": str(tmp_path)})
        )
        assert await eventually(lambda: (tmp_path / "started").exists())
        call.cancel()  # what the Stop button does to the turn's task
        with pytest.raises(asyncio.CancelledError):
            await call
        # the server heard notifications/cancelled and stopped the tool's work
        assert await eventually(lambda: (tmp_path / "cancelled").exists())
    finally:
        await manager.aclose()
