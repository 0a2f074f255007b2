"""An MCP server that says how it was reached: its arguments, and over HTTP the request's URL
query and headers. Takes any arguments; `--http PORT` (0: any) serves streamable HTTP and
prints "PORT n".
"""

from __future__ import annotations

import sys

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from serve import serve  # a sibling module: this script runs as a file

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


if __name__ == "__main__":
    serve(server)
