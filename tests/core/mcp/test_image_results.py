"""MCP image results (a screenshot): images for a vision model, a placeholder for others."""

from __future__ import annotations

import base64
from pathlib import Path

from loki_desktop.core.events import ToolResult
from loki_desktop.core.images import MAX_SIDE
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from loki_desktop.persistence.secrets import KeyringSecrets
from tests.agent_rig import make_agent, turn
from tests.core.mcp.conftest import stdio
from tests.core.models.conftest import served
from tests.fakes.ollama_server import ModelCard, Reply

VISION = ModelCard.no_tools("vision", family="gemma3")
BLIND = ModelCard(family="llama")


async def test_an_mcp_screenshot_reaches_a_vision_model_as_an_image(
    store: History, workspace: Path, tag: str
) -> None:
    manager = McpManager({"shot": stdio("shot", "screenshot", tag=tag)}, KeyringSecrets())
    try:
        for card in (VISION, BLIND):
            async with served({"m:1": card}) as (server, backend):
                server.script(
                    Reply.tool("mcp_shot_screenshot", {"width": 2000, "height": 1000}),
                    Reply.text("Une page rouge."),
                )
                agent = make_agent(
                    backend,
                    store,
                    workspace,
                    Settings(model="m:1"),
                    skills=False,
                    extra_sources=[manager],
                )
                events = await turn(agent, "Capture l'écran")
            result = next(e for e in events if isinstance(e, ToolResult))
            assert result.ok
            assert [(i.mime_type, i.width, i.height) for i in result.images] == [
                ("image/png", MAX_SIDE, 784)
            ]
            tool_message = server.chat_requests[1]["messages"][-1]
            assert "[image image/png," in tool_message["content"]  # the placeholder stays
            if card is VISION:
                assert base64.b64decode(tool_message["images"][0]) == result.images[0].content()
            else:
                assert "images" not in tool_message
    finally:
        await manager.aclose()
