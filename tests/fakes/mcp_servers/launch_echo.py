"""An MCP server that says how it was reached: its arguments, and over HTTP the request's URL
query and headers. Takes any arguments; `--http PORT` (0: any) serves streamable HTTP and
prints "PORT n".
"""

from __future__ import annotations

import argparse
import socket
import sys

from mcp.server import MCPServer
from mcp.server.mcpserver import Context

server = MCPServer("launch-echo", log_level="WARNING")


@server.tool()
def argv() -> str:
    """Return the server's command-line arguments, joined by spaces."""
    return " ".join(sys.argv[1:])


@server.tool()
def query(name: str, ctx: Context) -> str:
    """Return one query parameter of the request URL (HTTP only)."""
    request = ctx.request_context.request
    params = getattr(request, "query_params", None) or {}
    return str(params.get(name, "(unset)"))


@server.tool()
def header(name: str, ctx: Context) -> str:
    """Return the value of a request header (HTTP only)."""
    return (ctx.headers or {}).get(name.lower(), "(unset)")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, help="serve streamable HTTP on this port (0: any)")
    args, _rest = parser.parse_known_args()
    if args.http is None:
        server.run()
        return
    port = args.http or _free_port()
    print(f"PORT {port}", flush=True)
    server.run("streamable-http", host="127.0.0.1", port=port)


if __name__ == "__main__":
    main()
