"""Conversation values shared by the agent, the stores and the window (free of storage)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["system", "user", "assistant", "tool"]
# "harness" marks a message the app wrote on the user's behalf (the check follow-up):
# the model sees it as a user message, the window shows it as a quiet note.
Origin = Literal["user", "harness"]
# Ends a cut answer (stopped, length limit, stream cut, crash) in what the model is sent, so
# it knows it did not finish and "continue" picks up where it stopped (model-facing).
CUT_MARKER = "\n\n[This answer was cut off here, before it was finished.]"


@dataclass(frozen=True, slots=True)
class CallRecord:
    """A tool call the assistant made, as stored in history."""

    id: str
    name: str
    args: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One message of a conversation.

    `extra` carries what the window needs to re-render a reopened conversation
    (the skill badge, a tool's ok/summary, a check report), never what the model needs.
    """

    role: Role
    content: str
    tool_calls: tuple[CallRecord, ...] = ()
    tool_call_id: str | None = None
    tool_name: str | None = None
    origin: Origin = "user"
    cut: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    id: int | None = None

    def model_content(self) -> str:
        """The content as the model is sent it: a cut answer says that it was cut."""
        if self.role == "assistant" and self.cut:
            return self.content + CUT_MARKER
        return self.content

    def to_ollama(self) -> dict[str, Any]:
        """The wire shape of this message in an Ollama /api/chat request."""
        wire: dict[str, Any] = {"role": self.role, "content": self.model_content()}
        if self.tool_calls:
            wire["tool_calls"] = [
                {"function": {"name": call.name, "arguments": call.args}}
                for call in self.tool_calls
            ]
        if self.role == "tool" and self.tool_name:
            wire["tool_name"] = self.tool_name
        return wire


@dataclass(frozen=True, slots=True)
class ConversationInfo:
    """A line of the conversation list."""

    id: str
    title: str
    created_at: float
    updated_at: float
    message_count: int
    workspace: str | None = None
