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

from loki_desktop.core.mcp.config import TOOL_PREFIX
from loki_desktop.core.ports import ToolSpec
from loki_desktop.core.slim import slim_spec, spec_tokens

RESULT_CAP = 8_000
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
    """What one call gave back, reduced to text for the model."""

    ok: bool
    text: str


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
        parameters=lean_parameters(tool.input_schema),
        source=server_id,
    )


def tools_cost(specs: Iterable[ToolSpec]) -> tuple[int, int]:
    """What these tools add to every model request: (characters, estimated tokens).

    Measured as the request carries them: slimmed (core.slim), in compact JSON.
    """
    slimmed = [slim_spec(spec) for spec in specs]
    chars = sum(
        len(json.dumps(spec.to_ollama(), separators=(",", ":"), ensure_ascii=False))
        for spec in slimmed
    )
    return chars, sum(spec_tokens(spec) for spec in slimmed)


def lean_parameters(schema: dict[str, Any]) -> dict[str, Any]:
    """An object schema for Ollama, without the annotations that only cost context."""
    lean = _lean(schema) if isinstance(schema, dict) else {}
    if lean.get("type") != "object":
        lean = {"type": "object", **{k: v for k, v in lean.items() if k != "type"}}
    lean.setdefault("properties", {})
    return lean


# Keywords whose value is a schema, or a list or map of schemas: titles are dropped inside
# them too. Anything else (enum, const, default, examples) is data and kept as it is.
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_VALUES = ("items", "additionalProperties", "not", "if", "then", "else", "contains")


def _lean(node: dict[str, Any]) -> dict[str, Any]:
    lean: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("title", "$schema"):
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            lean[key] = {k: _lean(v) if isinstance(v, dict) else v for k, v in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            lean[key] = [_lean(v) if isinstance(v, dict) else v for v in value]
        elif key in _SCHEMA_VALUES and isinstance(value, dict):
            lean[key] = _lean(value)
        else:
            lean[key] = value
    return lean


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


def looks_failed(text: str, markers: Sequence[str]) -> bool:
    """A short result carrying a known error text (a server that reports errors as results)."""
    if len(text) > ERROR_TEXT_MAX:
        return False
    return any(marker in text for marker in markers)


def cut(text: str, limit: int = RESULT_CAP) -> str:
    """At most `limit` characters, with a marker saying how much was left out."""
    if len(text) <= limit:
        return text
    marker = f"\n[... result cut: {len(text) - limit} more characters not shown ...]"
    return text[: max(0, limit - len(marker))] + marker
