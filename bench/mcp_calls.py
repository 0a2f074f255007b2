"""MCP: a tool call through Loki vs a raw SDK session, and the cost of an enabled, unused server.

Both sides talk to their own copy of the same stdio echo server (tests/fakes/mcp_servers/
echo.py), calls alternate. Ours is the path the agent takes: `McpManager.call()` (the
ToolSource), with its request timeout, result conversion and cut. The raw side is an
`mcp.ClientSession` calling the same tool.

An enabled server costs nothing while it is unused, except its tools: their schemas go
into every request (the model reads them). So the first token of a turn is timed with the
echo server connected and offered, and without it, alternating, against the same fake
Ollama; the request's growth is reported in bytes and estimated tokens.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from bench.figures import Figure, median_of
from bench.first_token import REPLY, Turns
from loki_desktop.core.mcp.config import ServerConfig
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.persistence.secrets import KeyringSecrets
from tests.fakes.mcp_servers import script
from tests.fakes.ollama_server import FakeOllama

CALLS = 200
TURNS = 30
ARGS = {"text": "bonjour"}


async def _raw_call(session: ClientSession) -> float:
    began = time.perf_counter()
    result = await session.call_tool("echo", ARGS)
    elapsed = time.perf_counter() - began
    if result.is_error:
        raise RuntimeError(f"raw echo call failed: {result}")
    return elapsed


async def _our_call(manager: McpManager) -> float:
    began = time.perf_counter()
    outcome = await manager.call("mcp_echo_echo", dict(ARGS))
    elapsed = time.perf_counter() - began
    if not outcome.ok:
        raise RuntimeError(f"Loki echo call failed: {outcome.output}")
    return elapsed


def _chat_bytes(body: dict[str, object]) -> int:
    return len(json.dumps(body, ensure_ascii=False).encode())


async def _measure() -> list[Figure]:
    server = StdioServerParameters(command=sys.executable, args=[script("echo")])
    config = ServerConfig("echo", "stdio", True, command=(sys.executable, script("echo")))
    manager = McpManager({"echo": config}, KeyringSecrets())
    raw: list[float] = []
    ours: list[float] = []
    with_server: list[float] = []
    without: list[float] = []
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        began = time.perf_counter()
        notices = await manager.prepare()
        connect_s = time.perf_counter() - began
        if manager.status("echo").state != "connected":
            raise RuntimeError(f"the echo server did not connect: {notices}")
        try:
            for _ in range(10):  # warm both sessions
                await _raw_call(session)
                await _our_call(manager)
            for _ in range(CALLS):
                raw.append(await _raw_call(session))
                ours.append(await _our_call(manager))
            with tempfile.TemporaryDirectory() as tmp, FakeOllama(default=REPLY) as ollama:
                turns = Turns(ollama.url, Path(tmp))
                await turns.first_token([manager])
                await turns.first_token()
                for _ in range(TURNS):
                    with_server.append(await turns.first_token([manager]))
                    without.append(await turns.first_token())
                bodies = ollama.chat_requests[-2:]  # the last with, the last without
                await turns.aclose()
            status = manager.status("echo")
        finally:
            await manager.aclose()
    grown = _chat_bytes(bodies[0]) - _chat_bytes(bodies[1])
    overhead_ms = (median_of(ours) - median_of(raw)) * 1000
    unused_ms = (median_of(with_server) - median_of(without)) * 1000
    return [
        Figure(
            "MCP",
            "connect a stdio server (Python echo)",
            connect_s * 1000,
            "ms",
            None,
            note="process start + handshake, once",
        ),
        Figure("MCP", "raw SDK session, echo call", median_of(raw) * 1000, "ms", None, runs=CALLS),
        Figure("MCP", "Loki McpManager, echo call", median_of(ours) * 1000, "ms", None, runs=CALLS),
        Figure(
            "MCP",
            "call overhead over the raw SDK",
            overhead_ms,
            "ms",
            1.0,
            runs=CALLS,
            note="difference of the medians",
        ),
        Figure(
            "MCP",
            "first token, no server enabled",
            median_of(without) * 1000,
            "ms",
            None,
            runs=TURNS,
        ),
        Figure(
            "MCP",
            "first token, echo server enabled, unused",
            median_of(with_server) * 1000,
            "ms",
            None,
            runs=TURNS,
            note=f"{len(status.tools)} tools offered",
        ),
        Figure(
            "MCP",
            "cost of an enabled, unused server",
            unused_ms,
            "ms",
            1.0,
            runs=TURNS,
            note=f"'~0' read as <= 1 ms; request +{grown:,} bytes, "
            f"~{status.schema_tokens} tokens of schemas",
        ),
    ]


def measure() -> list[Figure]:
    return asyncio.run(_measure())
