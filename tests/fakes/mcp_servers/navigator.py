"""A stand-in for the browser server's navigate tool (Playwright MCP's `browser_navigate`,
which takes `{"url": ...}`): it says which URL it was asked to open. stdio only."""

from __future__ import annotations

from mcp.server import MCPServer
from serve import serve  # a sibling module: this script runs as a file

server = MCPServer("navigator", log_level="WARNING")


@server.tool()
def browser_navigate(url: str) -> str:
    """Navigate to a URL."""
    return f"Page URL: {url}"


if __name__ == "__main__":
    serve(server)
