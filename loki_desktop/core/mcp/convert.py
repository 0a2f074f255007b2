"""MCP tools and results in the model's terms: tool specs, names, result text, failures.

Works on plain values (and duck-typed SDK objects), so it never imports the `mcp` package.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from loki_desktop.core.image_attachment import ImageAttachment
from loki_desktop.core.mcp.config import TOOL_PREFIX
from loki_desktop.core.ports import ToolSpec

# A result longer than this is content, not an error report, whatever words it contains.
ERROR_TEXT_MAX = 400
MAX_TOOL_NAME = 64  # what OpenAI-style function calling accepts; Ollama models are trained on it

_UNSAFE_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True, slots=True)
class McpTool:
    """A tool as the server described it."""

    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True, slots=True)
class CallResult:
    """What one call gave back, reduced to text for the model; its images besides."""

    ok: bool
    text: str
    images: tuple[ImageAttachment, ...] = ()


def tool_name(server_id: str, name: str) -> str:
    """`mcp_<server>_<tool>`, limited to the characters and length models accept."""
    safe = _UNSAFE_NAME_CHARS.sub("_", name) or "tool"
    full = f"{TOOL_PREFIX}{server_id}_{safe}"
    if len(full) <= MAX_TOOL_NAME and safe == name:
        return full
    digest = hashlib.sha1(name.encode()).hexdigest()[:6]
    room = MAX_TOOL_NAME - len(TOOL_PREFIX) - len(server_id) - len(digest) - 2
    return f"{TOOL_PREFIX}{server_id}_{safe[: max(room, 1)]}_{digest}"


def split_tool_name(name: str) -> tuple[str, str] | None:
    """(server id, tool part) of a model-facing name, or None if it is not an MCP name."""
    if not name.startswith(TOOL_PREFIX):
        return None
    server_id, sep, rest = name[len(TOOL_PREFIX) :].partition("_")
    if not sep or not server_id or not rest:
        return None
    return server_id, rest


def exposed(tools: Iterable[McpTool], expose: Sequence[str] | None) -> list[McpTool]:
    """The tools that reach the model, in the server's order."""
    if expose is None:
        return list(tools)
    wanted = set(expose)
    return [tool for tool in tools if tool.name in wanted]


def to_spec(server_id: str, tool: McpTool) -> ToolSpec:
    return ToolSpec(
        name=tool_name(server_id, tool.name),
        description=(tool.description or tool.name).strip(),
        # as the server gave it: core.slim trims it (titles, $schema...) on every request
        parameters=dict(tool.input_schema),
        source=server_id,
    )


# --- results ------------------------------------------------------------------------------


def result_text(content: Sequence[Any], structured: Any = None) -> str:
    """The text of a CallToolResult's content blocks (images and binaries named, not inlined)."""
    parts: list[str] = []
    for block in content:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(str(block.text))
        elif kind in ("image", "audio"):
            size = len(getattr(block, "data", "") or "") * 3 // 4
            parts.append(f"[{kind} {getattr(block, 'mime_type', '?')}, {size} bytes]")
        elif kind == "resource_link":
            parts.append(f"[resource {getattr(block, 'uri', '')}]")
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            if isinstance(text, str):
                parts.append(text)
            else:
                parts.append(f"[binary resource {getattr(resource, 'uri', '')}]")
        else:
            parts.append(f"[{kind or 'unknown'} content]")
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False, default=str))
    return "\n".join(parts)


def result_images(content: Sequence[Any]) -> tuple[ImageAttachment, ...]:
    """The images of a CallToolResult's content, checked and downscaled for a vision model.

    One that cannot be read is left out (its text placeholder still names it).
    """
    blocks = [block for block in content if getattr(block, "type", None) == "image"]
    if not blocks:
        return ()
    from loki_desktop.core.images import ImageRefused, image_from_base64  # Pillow: when needed

    images = []
    for index, block in enumerate(blocks, 1):
        try:
            images.append(image_from_base64(str(getattr(block, "data", "")), f"image {index}"))
        except ImageRefused:
            continue
    return tuple(images)


def looks_failed(text: str, markers: Sequence[str]) -> bool:
    """A short result carrying a known error text (a server that reports errors as results)."""
    if len(text) > ERROR_TEXT_MAX:
        return False
    return any(marker in text for marker in markers)
