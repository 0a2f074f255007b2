"""An MCP server that starts a helper process without setsid (in its own process group),
as many real servers do (a browser, a language server), and has a tool that stays busy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
from mcp.server import MCPServer
from serve import serve  # a sibling module: this script runs as a file

server = MCPServer("with_helper", log_level="WARNING")
HELPER = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])


@server.tool()
def quick() -> str:
    """Answer at once."""
    return f"helper {HELPER.pid} running"


@server.tool()
async def busy(marker: str) -> str:
    """Write `marker` (a file path), then stay busy for ten minutes."""
    Path(marker).write_text("busy")
    await anyio.sleep(600)
    return "done"


if __name__ == "__main__":
    serve(server)
