"""Conversation values shared by the agent, the stores and the window (free of storage)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from loki_desktop.core.image_attachment import ImageAttachment
from loki_desktop.core.message_meta import NO_META, MessageMeta

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

    `meta` carries what the window needs to re-render a reopened conversation
    (the skill badge, a tool's ok/summary, a check report), never what the model needs;
    core.message_meta types it and converts it to and from the stored JSON.

    `thinking` is the reasoning a thinking model streamed before (or around) its answer,
    and `thinking_seconds` how long it reasoned (None when unknown). Reasoning is kept
    for people; it goes back to the model only inside the tool-calling turn that made
    it (as Ollama's tool-calling docs ask), never in later turns.
    `images` are the images of a user message (or of an MCP tool result) for a vision
    model; the store keeps them as files, not in its rows.
    `turn` numbers the agent run that wrote the message in its conversation (1 for the
    first). Numbers are never reused across branches: an edited message or a regenerated
    answer starts a new turn, so a checkpoint keyed by (conversation, turn) stays one
    turn's. None when the store is to give it the turn of the message it follows.
    """

    role: Role
    content: str
    tool_calls: tuple[CallRecord, ...] = ()
    tool_call_id: str | None = None
    tool_name: str | None = None
    origin: Origin = "user"
    cut: bool = False
    meta: MessageMeta = NO_META
    id: int | None = None
    thinking: str = ""
    thinking_seconds: float | None = None
    images: tuple[ImageAttachment, ...] = ()
    turn: int | None = None

    def model_content(self) -> str:
        """The content as the model is sent it: a cut answer says that it was cut."""
        if self.role == "assistant" and self.cut:
            return self.content + CUT_MARKER
        return self.content

    def to_ollama(self, *, with_thinking: bool = False) -> dict[str, Any]:
        """The wire shape of this message in an Ollama /api/chat request.

        `with_thinking` sends the reasoning back (only for the tool calls of the turn
        being answered). Images go as base64; one whose file is gone is left out.
        """
        wire: dict[str, Any] = {"role": self.role, "content": self.model_content()}
        if with_thinking and self.thinking:
            wire["thinking"] = self.thinking
        if self.images:
            encoded = []
            for image in self.images:
                try:
                    encoded.append(image.to_base64())
                except OSError:
                    continue  # deleted by hand: the words still go
            if encoded:
                wire["images"] = encoded
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
    pinned: bool = False


@dataclass(frozen=True, slots=True)
class Branches:
    """The versions of one message of the shown path: the messages that follow the same
    one (an edited message and its original, a regenerated answer and the earlier ones),
    oldest first, and which of them the path goes through."""

    ids: tuple[int, ...]
    index: int  # 0-based, into ids

    @property
    def label(self) -> str:
        """As the arrows show it: "2/3"."""
        return f"{self.index + 1}/{len(self.ids)}"


@dataclass(frozen=True, slots=True)
class StoredMessage:
    """One message and its place in the tree of branches. In an export, `message.id` is its
    number in the conversation (1, 2, ... in the order it was written) and `parent` the
    number of the message it follows (None: the first of a branch from the start)."""

    message: ChatMessage
    parent: int | None
    created_at: float


@dataclass(frozen=True, slots=True)
class ConversationExport:
    """Everything the history holds about one conversation; `leaf` is the number of the last
    message of the branch shown (None: an empty conversation)."""

    id: str
    title: str
    workspace: str | None
    created_at: float
    updated_at: float
    pinned: bool
    leaf: int | None
    messages: tuple[StoredMessage, ...]

    def path(self) -> list[StoredMessage]:
        """The branch shown, first message first."""
        by_id = {stored.message.id: stored for stored in self.messages}
        path: list[StoredMessage] = []
        current = self.leaf
        while current is not None and current in by_id and len(path) < len(by_id):
            stored = by_id[current]
            path.append(stored)
            current = stored.parent
        path.reverse()
        return path

    def branch_count(self) -> int:
        """How many branches the conversation has (1 when nothing was edited or redone)."""
        parents = {stored.parent for stored in self.messages}
        return max(1, sum(1 for s in self.messages if s.message.id not in parents))
