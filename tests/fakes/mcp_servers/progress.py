"""An MCP server whose long tool reports its progress, as the reference `everything` server's
`trigger-long-running-operation` does (a notifications/progress per step, to the call's
progress token). stdio only.

    python tests/fakes/mcp_servers/progress.py
"""

from __future__ import annotations

from pathlib import Path

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from serve import serve  # a sibling module: this script runs as a file

server = MCPServer("progress", log_level="WARNING")


@server.tool()
async def steps(count: int, every_s: float, ctx: Context) -> str:
    """Work in `count` steps of `every_s` seconds, reporting progress after each."""
    for step in range(1, count + 1):
        await anyio.sleep(every_s)
        await ctx.report_progress(step, count, f"step {step} of {count}")
    return f"done in {count} steps"


@server.tool()
async def quiet(seconds: float) -> str:
    """Work `seconds` without a word, then answer."""
    await anyio.sleep(seconds)
    return f"quiet for {seconds}"


@server.tool()
async def until_cancelled(folder: str) -> str:
    """Work until the client cancels the call (notifications/cancelled): writes `started`, then
    `cancelled` in `folder` when the cancellation reaches it."""
    marks = Path(folder)
    (marks / "started").write_text("yes")
    try:
        await anyio.sleep(120)
    except anyio.get_cancelled_exc_class():
        (marks / "cancelled").write_text("yes")
        raise
    return "never cancelled"


if __name__ == "__main__":
    serve(server)
