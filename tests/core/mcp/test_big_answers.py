"""An MCP server's answer has a cap: a huge JSON body fails that call, in words; the server
stays usable."""

from __future__ import annotations

import resource
from collections.abc import Iterator

import pytest

from loki_desktop.core.mcp.config import ServerConfig
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.persistence.secrets import KeyringSecrets
from tests.fakes.mcp_servers import start_http

SLOW_MACHINE_S = 60.0


@pytest.fixture
def json_echo() -> Iterator[str]:
    """The echo server over streamable HTTP answering in JSON bodies (not SSE)."""
    process, (port,) = start_http("echo", "--http", "0", "--json")
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.mark.timeout(180)
async def test_a_json_answer_over_the_cap_fails_the_call_and_the_server_goes_on(
    json_echo: str, secrets: KeyringSecrets
) -> None:
    manager = McpManager(
        {"web": ServerConfig("web", "http", True, url=json_echo)},
        secrets,
        handshake_timeout=SLOW_MACHINE_S,
        connect_wait=SLOW_MACHINE_S,
    )
    try:
        assert await manager.prepare() == []
        before = _peak_mb()
        result = await manager.call("mcp_web_big", {"size": 40_000_000})
        assert _peak_mb() - before < 100  # not 40 MB of text, its JSON and its copies
        assert not result.ok
        assert "16 MB" in result.output
        again = await manager.call("mcp_web_echo", {"text": "encore"})
        assert again.ok
        assert "echo: encore" in again.output
    finally:
        await manager.aclose()
