"""A well-behaved MCP server: echo, env, header, big, slow, fail, crash. stdio or --http PORT.

    python tests/fakes/mcp_servers/echo.py                 # stdio
    python tests/fakes/mcp_servers/echo.py --http 0        # streamable HTTP, prints "PORT n"

`crash` ends the process in the middle of the call; `slow` sleeps before answering.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

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


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, help="serve streamable HTTP on this port (0: any)")
    args = parser.parse_args()
    if args.http is None:
        server.run()
        return
    port = args.http or _free_port()
    print(f"PORT {port}", flush=True)
    server.run("streamable-http", host="127.0.0.1", port=port)


if __name__ == "__main__":
    main()
