"""Protocols the core needs from the outside world, and the values they exchange."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from loki_desktop.core.messages import CallRecord, ChatMessage, ConversationInfo
from loki_desktop.core.settings import Settings

# --- the model server -------------------------------------------------------------


class BackendError(Exception):
    """The model server failed; the message is one sentence for a human."""


class BackendUnreachable(BackendError):
    """Nothing answers at the host."""


class ModelNotFound(BackendError):
    """The server answered but does not have the model."""


class StreamCut(BackendError):
    """The answer stream ended before the server said it was done."""


@dataclass(frozen=True, slots=True)
class ModelInfo:
    name: str
    size: int = 0
    parameter_size: str = ""
    context_length: int | None = None


@dataclass(frozen=True, slots=True)
class NativeToolCall:
    """A tool call as the model sent it (arguments not yet validated)."""

    name: str
    arguments: Any


@dataclass(frozen=True, slots=True)
class ChatChunk:
    """One streamed piece of a model reply."""

    content: str = ""
    thinking: str = ""
    tool_calls: tuple[NativeToolCall, ...] = ()
    done: bool = False
    done_reason: str | None = None
    prompt_eval_count: int | None = None
    eval_count: int | None = None


class ChatBackend(Protocol):
    async def list_models(self) -> list[ModelInfo]: ...

    async def context_length(self, model: str) -> int | None:
        """The longest context the model supports; None when the server does not say.
        Raises BackendError when the server cannot be asked (nothing to remember then)."""
        ...

    def chat(
        self,
        *,
        model: str,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]],
        options: dict[str, Any],
    ) -> AsyncIterator[ChatChunk]: ...


# --- tools ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as the model sees it. `source` is "native" or the MCP server id."""

    name: str
    description: str
    parameters: dict[str, Any]
    source: str = "native"

    def to_ollama(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What a tool call gave back. Failures are outcomes too, never exceptions.

    `output` goes to the model, `summary` is one line for people, `changed_path`
    names a workspace file the tool wrote (so the harness can check it).
    """

    ok: bool
    output: str
    summary: str = ""
    changed_path: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class ToolSource(Protocol):
    """A family of tools (the native ones, or the MCP servers)."""

    async def prepare(self) -> list[str]:
        """Get ready for a turn; returns notices for the user."""
        ...

    def specs(self) -> list[ToolSpec]: ...

    async def call(self, name: str, args: dict[str, Any]) -> ToolOutcome: ...


class Approver(Protocol):
    """Asks the user before a shell command runs. Refusing is a normal answer."""

    async def approve_shell(self, command: str, cwd: Path) -> bool: ...


# --- storage ----------------------------------------------------------------------


class StoreUnavailable(Exception):
    """The conversation history cannot be opened (locked, unreadable, too new): the message
    is one sentence for a human, and the file is left untouched."""


class ConversationStore(Protocol):
    def create(self, title: str, workspace: str | None = None) -> str: ...

    def exists(self, conversation_id: str) -> bool: ...

    def messages(self, conversation_id: str) -> list[ChatMessage]: ...

    def page(
        self, conversation_id: str, limit: int, before_id: int | None = None
    ) -> list[ChatMessage]:
        """The `limit` messages before `before_id` (the latest when None), oldest first."""
        ...

    def append(self, conversation_id: str, message: ChatMessage) -> None: ...

    def start_answer(self, conversation_id: str) -> int:
        """Open an assistant message that is filled while it streams; returns the handle
        that append_answer_text and finish_answer take (not necessarily a message id)."""
        ...

    def append_answer_text(self, message_id: int, text: str) -> None: ...

    def finish_answer(
        self,
        message_id: int,
        *,
        content: str,
        tool_calls: Sequence[CallRecord] = (),
        cut: bool = False,
        extra: dict[str, Any] | None = None,
    ) -> None: ...

    def list_conversations(self, query: str = "") -> list[ConversationInfo]: ...

    def rename(self, conversation_id: str, title: str) -> None: ...

    def delete(self, conversation_id: str) -> None: ...

    def take_notices(self) -> list[str]:
        """Notices from opening the store (a corrupt file moved aside), given once."""
        ...

    def close(self) -> None:
        """Write what is pending and close the store (at exit; nothing is called after)."""
        ...


class SettingsStore(Protocol):
    def load(self) -> Settings: ...

    def save(self, settings: Settings) -> None: ...

    def take_notices(self) -> list[str]:
        """Notices from loading (a corrupt file moved aside), given once."""
        ...


class SecretStoreUnavailable(Exception):
    """No usable OS keyring, or a locked one: nothing was stored or read (one sentence)."""


class SecretStore(Protocol):
    """The OS keyring. Every method raises SecretStoreUnavailable when it cannot be used;
    `get` returns None only when the secret is really absent."""

    def get(self, name: str) -> str | None: ...

    def set(self, name: str, value: str) -> None: ...

    def delete(self, name: str) -> None: ...
