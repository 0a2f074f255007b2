"""What servers offer besides tools: prompts (slash commands) and resources (attachments).

Plain values, built by the connection from the SDK's listings; the window and the CLI read
them through the manager (`prompts()`, `resources()`, `get_prompt()`, `read_resource()`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from loki_desktop.core.image_attachment import ImageAttachment


@dataclass(frozen=True, slots=True)
class PromptArg:
    name: str
    description: str = ""
    required: bool = False
    title: str = ""


@dataclass(frozen=True, slots=True)
class McpPrompt:
    """One prompt of one server; `command` is what the composer lists after "/"."""

    server_id: str
    server_label: str
    name: str
    title: str = ""
    description: str = ""
    arguments: tuple[PromptArg, ...] = ()

    @property
    def command(self) -> str:
        return f"{self.server_id}:{self.name}"

    def form_schema(self) -> dict[str, object]:
        """Its arguments as an elicitation schema (all strings), so one form asks for them."""
        properties = {
            arg.name: {
                "type": "string",
                "title": arg.title or arg.name,
                "description": arg.description,
            }
            for arg in self.arguments
        }
        required = [arg.name for arg in self.arguments if arg.required]
        return {"type": "object", "properties": properties, "required": required}


@dataclass(frozen=True, slots=True)
class RenderedPrompt:
    """A prompt as the server rendered it: its messages as (role, text)."""

    prompt: McpPrompt
    messages: tuple[tuple[str, str], ...]
    description: str = ""
    images: tuple[ImageAttachment, ...] = ()

    @property
    def text(self) -> str:
        """The user messages, in order: what the composer receives."""
        users = [text for role, text in self.messages if role == "user"]
        return "\n\n".join(users or [text for _role, text in self.messages])


@dataclass(frozen=True, slots=True)
class McpResource:
    """One resource of one server (what the "@" picker lists)."""

    server_id: str
    server_label: str
    uri: str
    name: str
    title: str = ""
    description: str = ""
    mime_type: str = ""

    @property
    def label(self) -> str:
        return self.title or self.name or self.uri


# a template's variables (RFC 6570): {name}, {+path}, {?q,lang}, {name*}
_TEMPLATE_EXPRESSION = re.compile(r"\{([+#./;?&]?)([^{}]+)\}")


@dataclass(frozen=True, slots=True)
class McpResourceTemplate:
    """A family of resources of one server, read by filling its URI template's parameters."""

    server_id: str
    server_label: str
    uri_template: str
    name: str
    title: str = ""
    description: str = ""
    mime_type: str = ""

    @property
    def parameters(self) -> tuple[str, ...]:
        names: list[str] = []
        for _operator, names_text in _TEMPLATE_EXPRESSION.findall(self.uri_template):
            for name in names_text.split(","):
                name = name.strip().rstrip("*").split(":")[0]
                if name and name not in names:
                    names.append(name)
        return tuple(names)


@dataclass(frozen=True, slots=True)
class ResourceContent:
    """A resource read: its text parts, and its images (for a vision model)."""

    resource: McpResource
    text: str = ""
    images: tuple[ImageAttachment, ...] = ()
    skipped: tuple[str, ...] = ()  # binary parts neither text nor image (their URIs)

    def as_context(self) -> str:
        """The text block joined to the person's message (English: the model reads it)."""
        head = f"Attached resource {self.resource.uri} ({self.resource.label}"
        head += f", from the MCP server '{self.resource.server_id}'):"
        return f"{head}\n```\n{self.text.rstrip()}\n```"
