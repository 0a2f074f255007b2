"""A tools/list answer with one bad tool keeps the good ones: each tool is checked alone.

The SDK checks the whole listing at once: one malformed input schema among six, or
`"tools": "nope"`, failed the listing (a pydantic ValidationError in English) and with it
the whole server. Here the answer is cleaned before the SDK reads it: every tool is checked
on its own, the bad ones are left out and named.
"""

from __future__ import annotations

from typing import Any

MAX_NAMED = 5  # bad tools named in the sentence (the rest counted)


def clean_tool_listing(result: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The listing with only the tools the SDK accepts, and the names (or positions) of
    the others. `result` is the JSON-RPC result of tools/list, as received."""
    from mcp.types import Tool  # loaded with the session already
    from pydantic import ValidationError

    tools = result.get("tools")
    if not isinstance(tools, list):
        return {**result, "tools": []}, ["tools"]
    kept: list[Any] = []
    bad: list[str] = []
    for index, tool in enumerate(tools):
        try:
            Tool.model_validate(tool)
        except (ValidationError, ValueError, TypeError, RecursionError):
            bad.append(_name_of(tool, index))
            continue
        kept.append(tool)
    if not bad:
        return result, []
    return {**result, "tools": kept}, bad


def _name_of(tool: Any, index: int) -> str:
    name = tool.get("name") if isinstance(tool, dict) else None
    if isinstance(name, str) and name.strip():
        return name.strip()[:64]
    return f"#{index + 1}"
