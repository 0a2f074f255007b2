"""A well-behaved MCP server: echo, env, header, big, slow, fail, crash. stdio or --http PORT.

    python tests/fakes/mcp_servers/echo.py                 # stdio
    python tests/fakes/mcp_servers/echo.py --http 0        # streamable HTTP, prints "PORT n"

`crash` ends the process in the middle of the call; `slow` sleeps before answering.
"""

from __future__ import annotations

import os
import sys

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from serve import serve  # a sibling module: this script runs as a file

server = MCPServer("echo", log_level="WARNING")


@server.tool()
def echo(text: str) -> str:
    """Return the text, prefixed with 'echo: '."""
    return f"echo: {text}"


@server.tool()
def env(name: str) -> str:
    """Return the value of an environment variable of the server process."""
    return os.environ.get(name, "(unset)")


@server.tool()
def header(name: str, ctx: Context) -> str:
    """Return the value of a request header (HTTP only)."""
    headers = ctx.headers or {}
    return headers.get(name.lower()) or headers.get(name) or "(unset)"


@server.tool()
def big(size: int) -> str:
    """Return `size` characters."""
    return "x" * size


@server.tool()
async def slow(seconds: float) -> str:
    """Sleep, then answer."""
    await anyio.sleep(seconds)
    return f"slept {seconds}"


@server.tool()
def fail(reason: str) -> str:
    """Fail with the reason as a tool error."""
    raise ToolError(reason)


@server.tool()
def crash() -> str:
    """Exit the process in the middle of the call."""
    print("echo server: crashing on purpose", file=sys.stderr, flush=True)
    os._exit(3)


if __name__ == "__main__":
    serve(server)
