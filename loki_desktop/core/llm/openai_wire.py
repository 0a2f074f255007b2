"""The request of an OpenAI-compatible Chat Completions call, from the core's message dicts.

The agent builds messages in Ollama's /api/chat shape (`images` as base64, tool calls
without ids, tool results with `tool_name`). Chat Completions wants images as content
parts (`image_url` with a data URL), an `id` on every assistant tool call with its
`arguments` as a JSON *string*, and each tool result tied to its call by `tool_call_id`.
Reference: https://platform.openai.com/docs/api-reference/chat/create
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from loki_desktop.core.ports import ThinkValue

# The first base64 characters of each image kind the core accepts (core.images).
_MIME_BY_PREFIX = (
    ("iVBORw0KGgo", "image/png"),
    ("/9j/", "image/jpeg"),
    ("R0lGOD", "image/gif"),
    ("UklGR", "image/webp"),
)


def request_body(
    *,
    model: str,
    messages: Sequence[dict[str, Any]],
    tools: Sequence[dict[str, Any]],
    think: ThinkValue | None,
    max_tokens: int = 0,
) -> dict[str, Any]:
    """The JSON body of a streamed /chat/completions request; `max_tokens` 0: no cap."""
    body: dict[str, Any] = {
        "model": model,
        "messages": wire_messages(messages),
        "stream": True,
        # the last chunk then carries `usage` (prompt_tokens: the context budget learns)
        "stream_options": {"include_usage": True},
    }
    if tools:
        body["tools"] = list(tools)
    if max_tokens > 0:
        # the answer's length cap (core.llm.caps); llama.cpp, vLLM and LM Studio take it
        body["max_tokens"] = max_tokens
    if isinstance(think, str) and think in ("low", "medium", "high"):
        # the levels OpenAI-style reasoning models take; on/off has no standard field
        body["reasoning_effort"] = think
    return body


def wire_messages(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages in Chat Completions' shape; tool results get their calls' ids."""
    wired: list[dict[str, Any]] = []
    pending_ids: list[str] = []  # ids of the last assistant message's calls, in order
    for index, message in enumerate(messages):
        role = str(message.get("role") or "user")
        content = str(message.get("content") or "")
        if role == "assistant" and message.get("tool_calls"):
            calls = [
                _wire_call(call, f"call_{index}_{n}")
                for n, call in enumerate(message["tool_calls"])
            ]
            pending_ids = [call["id"] for call in calls]
            wired.append({"role": "assistant", "content": content or None, "tool_calls": calls})
        elif role == "tool":
            call_id = pending_ids.pop(0) if pending_ids else f"call_{index}"
            wired.append({"role": "tool", "tool_call_id": call_id, "content": content})
        else:
            wired.append({"role": role, "content": _content(content, message.get("images"))})
    return wired


def _wire_call(call: dict[str, Any], call_id: str) -> dict[str, Any]:
    function = call.get("function") or {}
    arguments = function.get("arguments")
    return {
        "id": call_id,
        "type": "function",
        "function": {
            "name": str(function.get("name") or ""),
            "arguments": arguments
            if isinstance(arguments, str)
            else json.dumps(arguments if arguments is not None else {}, ensure_ascii=False),
        },
    }


def _content(text: str, images: Any) -> str | list[dict[str, Any]]:
    """Plain text, or content parts when the message carries images (vision models)."""
    if not isinstance(images, list) or not images:
        return text
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    for encoded in images:
        if isinstance(encoded, str) and encoded:
            url = f"data:{image_mime(encoded)};base64,{encoded}"
            parts.append({"type": "image_url", "image_url": {"url": url}})
    return parts


def image_mime(encoded: str) -> str:
    """The MIME type of a base64 image, from its first bytes (PNG when unknown)."""
    for prefix, mime in _MIME_BY_PREFIX:
        if encoded.startswith(prefix):
            return mime
    return "image/png"
