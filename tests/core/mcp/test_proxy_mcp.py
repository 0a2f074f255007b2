"""Issue 16.9 for MCP: an HTTP server on loopback is reached directly with a proxy set."""

from __future__ import annotations

import pytest

from loki_desktop.core.mcp.config import ServerConfig
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.persistence.secrets import KeyringSecrets
from tests.fakes.http_proxy import RecordingProxy


async def test_a_loopback_http_server_is_reached_without_the_proxy(
    http_echo: str, secrets: KeyringSecrets, monkeypatch: pytest.MonkeyPatch
) -> None:
    with RecordingProxy(upstream=http_echo) as proxy:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
            monkeypatch.setenv(name, proxy.url)
        for name in ("NO_PROXY", "no_proxy"):
            monkeypatch.delenv(name, raising=False)
        manager = McpManager({"web": ServerConfig("web", "http", True, url=http_echo)}, secrets)
        try:
            assert await manager.prepare() == []
            result = await manager.call("mcp_web_echo", {"text": "direct"})
        finally:
            await manager.aclose()
    assert (result.ok, result.output) == (True, "echo: direct")
    assert proxy.seen == []
