"""A session's listings (tools, prompts, resources; paginated) and rendered results, as our values.

Works on the SDK's session and result objects duck-typed, so it imports nothing of `mcp`.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from loki_desktop.core.image_attachment import ImageAttachment
from loki_desktop.core.mcp.convert import McpTool
from loki_desktop.core.mcp.offers import (
    McpPrompt,
    McpResource,
    McpResourceTemplate,
    PromptArg,
    RenderedPrompt,
    ResourceContent,
)

MAX_PAGES = 20
LIST_TIMEOUT_S = 30.0  # listing again, rendering a prompt, reading a resource


async def _pages(method: Any, field: str) -> list[Any]:
    """Every item of a paginated listing (`method(params=...)`), at most MAX_PAGES pages."""
    from mcp.types import PaginatedRequestParams  # loaded with the session already

    items: list[Any] = []
    cursor: str | None = None
    for _page in range(MAX_PAGES):
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        result = await method(params=params)
        items += list(getattr(result, field))
        cursor = result.next_cursor
        if not cursor:
            break
    return items


async def list_tools(session: Any) -> list[McpTool]:
    return [
        McpTool(tool.name, tool.description or "", dict(tool.input_schema))
        for tool in await _pages(session.list_tools, "tools")
    ]


async def list_prompts(session: Any, server_id: str, label: str) -> list[McpPrompt]:
    return [
        McpPrompt(
            server_id,
            label,
            prompt.name,
            prompt.title or "",
            prompt.description or "",
            tuple(
                PromptArg(arg.name, arg.description or "", bool(arg.required), arg.title or "")
                for arg in prompt.arguments or ()
            ),
        )
        for prompt in await _pages(session.list_prompts, "prompts")
    ]


async def list_resources(session: Any, server_id: str, label: str) -> list[McpResource]:
    return [
        McpResource(
            server_id,
            label,
            str(resource.uri),
            resource.name,
            resource.title or "",
            resource.description or "",
            resource.mime_type or "",
        )
        for resource in await _pages(session.list_resources, "resources")
    ]


async def list_resource_templates(
    session: Any, server_id: str, label: str
) -> list[McpResourceTemplate]:
    return [
        McpResourceTemplate(
            server_id,
            label,
            str(template.uri_template),
            template.name,
            template.title or "",
            template.description or "",
            template.mime_type or "",
        )
        for template in await _pages(session.list_resource_templates, "resource_templates")
    ]


def prompt_messages(prompt: McpPrompt, result: Any) -> RenderedPrompt:
    """A GetPromptResult as (role, text) messages; images kept aside, resources inlined."""
    from loki_desktop.core.mcp.convert import result_images, result_text

    messages: list[tuple[str, str]] = []
    images: list[ImageAttachment] = []
    for message in result.messages:
        messages.append((str(message.role), result_text([message.content])))
        images += result_images([message.content])
    return RenderedPrompt(prompt, tuple(messages), result.description or "", tuple(images))


def resource_content(resource: McpResource, result: Any) -> ResourceContent:
    """A ReadResourceResult: its texts joined, its images checked, other binaries named."""
    texts: list[str] = []
    images: list[ImageAttachment] = []
    skipped: list[str] = []
    for part in result.contents:
        text = getattr(part, "text", None)
        if isinstance(text, str):
            texts.append(text)
            continue
        mime = getattr(part, "mime_type", None) or resource.mime_type
        image = _image(str(getattr(part, "blob", "")), mime, resource.label)
        if image is not None:
            images.append(image)
        else:
            skipped.append(str(part.uri))
    return ResourceContent(resource, "\n\n".join(texts), tuple(images), tuple(skipped))


def _image(blob: str, mime: str, name: str) -> ImageAttachment | None:
    if not mime.startswith("image/"):
        return None
    from loki_desktop.core.images import ImageRefused, prepare_image  # Pillow: when needed

    try:
        return prepare_image(base64.b64decode(blob, validate=True), name)
    except (ImageRefused, binascii.Error, ValueError):
        return None
