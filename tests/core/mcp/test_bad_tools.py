"""One badly described tool keeps the server usable: the good tools stay, the bad one is named."""

from __future__ import annotations

from dataclasses import replace

import pytest

from loki_desktop.core.mcp.config import ServerConfig
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.core.mcp.tool_check import clean_tool_listing
from loki_desktop.persistence.secrets import KeyringSecrets
from tests.core.mcp.conftest import PY, stdio
from tests.fakes.mcp_servers import script

pytestmark = pytest.mark.usefixtures("no_zombies")

SLOW_MACHINE_S = 60.0


def _server(mode: str, tag: str) -> ServerConfig:
    return replace(stdio("bad", "bad_tools", tag=tag), command=(PY, script("bad_tools"), mode))


async def test_one_malformed_schema_among_six_keeps_the_five_and_names_it(
    secrets: KeyringSecrets, tag: str
) -> None:
    manager = McpManager(
        {"bad": _server("one", tag)},
        secrets,
        handshake_timeout=SLOW_MACHINE_S,
        connect_wait=SLOW_MACHINE_S,
    )
    try:
        notices = await manager.prepare()
        assert sorted(spec.name for spec in manager.specs()) == [
            f"mcp_bad_tool{i}" for i in range(5)
        ]
        (notice,) = notices
        assert "« broken »" in notice
        assert "les autres restent utilisables" in notice
        assert "pydantic" not in notice
        assert "ValidationError" not in notice
        result = await manager.call("mcp_bad_tool3", {"text": "x"})
        assert result.ok
        assert await manager.prepare() == []  # told once
    finally:
        await manager.aclose()


async def test_tools_that_are_not_a_list_are_said_in_one_sentence(
    secrets: KeyringSecrets, tag: str
) -> None:
    manager = McpManager(
        {"bad": _server("all", tag)},
        secrets,
        handshake_timeout=SLOW_MACHINE_S,
        connect_wait=SLOW_MACHINE_S,
    )
    try:
        (notice,) = await manager.prepare()
        assert "liste d'outils illisible" in notice
        assert manager.specs() == []
        assert {s.id: s.state for s in manager.statuses()} == {"bad": "connected"}
    finally:
        await manager.aclose()


def test_the_listing_is_checked_tool_by_tool() -> None:
    good = {"name": "ok", "inputSchema": {"type": "object"}}
    cleaned, bad = clean_tool_listing({"tools": [good, {"inputSchema": {}}, 3], "x": 1})
    assert cleaned == {"tools": [good], "x": 1}
    assert bad == ["#2", "#3"]
