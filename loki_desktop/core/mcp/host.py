"""What MCP servers ask of Loki itself (elicitation, sampling, roots), as plain values and a port.

A server may ask the person to fill a form or visit a URL (elicitation), ask the person's own
model for a completion (sampling), and list the folders it may work in (roots). The core
answers through `McpHost`, which the window (dialogs, a card in the conversation) and
`loki-desktop ask` (the terminal) implement; the core never imports Qt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

from loki_desktop.core.mcp.elicitation import ElicitationForm, Value

ElicitAction = Literal["accept", "decline", "cancel"]
SamplingPolicy = Literal["always", "ask", "never"]
SAMPLING_POLICIES: tuple[SamplingPolicy, ...] = ("always", "ask", "never")
DEFAULT_SAMPLING: SamplingPolicy = "ask"


@dataclass(frozen=True)
class ElicitationRequest:
    """A server's question to the person: a form (`form`), or a URL to open (`url`)."""

    server_id: str
    server_label: str
    message: str
    form: ElicitationForm | None = None
    url: str = ""

    @property
    def is_url(self) -> bool:
        return self.form is None


@dataclass(frozen=True)
class ElicitationAnswer:
    """accept (with the form's content; none for a URL), decline, or cancel (dismissed)."""

    action: ElicitAction
    content: dict[str, Value] | None = None


@dataclass(frozen=True)
class SamplingRequest:
    """A server's `sampling/createMessage`, reduced to what the local model is given."""

    server_id: str
    server_label: str
    messages: tuple[tuple[str, str], ...]  # (role, text), oldest first
    system_prompt: str = ""
    max_tokens: int = 1024
    temperature: float | None = None
    stop: tuple[str, ...] = ()
    model_hints: tuple[str, ...] = ()  # the server's preferred model names (hints only)
    images: int = 0  # images in the messages: not sent (described as such to the model)

    @property
    def prompt(self) -> str:
        """The last user message: what the card and the approval show first."""
        for role, text in reversed(self.messages):
            if role == "user":
                return text
        return self.messages[-1][1] if self.messages else ""


@dataclass(frozen=True)
class SamplingReport:
    """What happened to one sampling request: the answer, or why there is none."""

    request: SamplingRequest
    answer: str = ""
    model: str = ""
    refused: str = ""  # French sentence when refused or failed
    stop_reason: str = "endTurn"
    notes: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not self.refused


class McpHost(Protocol):
    """The person's side of the servers' requests (the window, or the terminal)."""

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        """Ask the person; a form's content goes through `request.form.validate` first."""
        ...

    async def approve_sampling(self, request: SamplingRequest) -> bool:
        """Asked only for a server whose sampling policy is "ask"."""
        ...

    def sampling_done(self, report: SamplingReport) -> None:
        """Show what was answered (or refused) to which server: a card, a line."""
        ...
