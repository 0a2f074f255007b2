"""An MCP server with one tool that returns an image, as Playwright's browser_take_screenshot.

`screenshot(width, height)` answers a caption and a PNG of that size (one colour), as MCP
content blocks (text, then image with base64 `data` and `mime_type`).
"""

from __future__ import annotations

import io
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Image
from PIL import Image as Picture
from serve import serve  # a sibling module: this script runs as a file

server = MCPServer("screenshot", log_level="WARNING")


@server.tool(structured_output=False)  # content blocks only, as Playwright's screenshot
def screenshot(width: int, height: int) -> list[Any]:
    """Take a screenshot of the page (a PNG of the given size)."""
    out = io.BytesIO()
    Picture.new("RGB", (width, height), (200, 30, 30)).save(out, "PNG")
    return [f"Screenshot {width}x{height}", Image(data=out.getvalue(), format="png")]


if __name__ == "__main__":
    serve(server)
