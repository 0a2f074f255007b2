"""Protocols the core needs from the outside world, and the values they exchange."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from loki_desktop.core.events import ChangedFile, CheckReport
from loki_desktop.core.file_change import FileChange
from loki_desktop.core.image_attachment import ImageAttachment
from loki_desktop.core.message_meta import MessageMeta
from loki_desktop.core.messages import (
    Branches,
    CallRecord,
    ChatMessage,
    ConversationExport,
    ConversationInfo,
)
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


class ToolsUnsupported(BackendError):
    """The server refused `tools` for this model (HTTP 400 "... does not support tools"):
    the same request goes again with the tools described in the prompt."""


class ThinkingUnsupported(BackendError):
    """The server refused `think` for this model (HTTP 400 "... does not support thinking"):
    the same request goes again without it."""


class ContextOverflow(BackendError):
    """The prompt did not fit the context the server runs the model with (HTTP 400 from a
    llama.cpp or OpenAI-style front). `n_ctx` / `n_prompt` are what the server reported
    (None when it did not say); the request is trimmed to fit and sent once more."""

    def __init__(self, message: str, *, n_ctx: int | None = None, n_prompt: int | None = None):
        super().__init__(message)
        self.n_ctx = n_ctx
        self.n_prompt = n_prompt


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
    # Ollama's `eval_duration`: nanoseconds spent writing the answer (None: not said)
    eval_duration_ns: int | None = None
    notice: str = ""  # a sentence about the stream itself (a garbage line skipped)


ThinkValue = bool | str  # Ollama's `think`: true/false, or a level the model lists ("low"...)


@dataclass(frozen=True, slots=True)
class ModelProfile:
    """What a model can do, from Ollama's /api/show (asked once per model and host).

    `capabilities` are Ollama's words: "completion", "tools", "thinking", "vision",
    "embedding", "insert"... `think_values` / `think_default` are /api/show's `thinking`
    object when the model has one (`values` may hold booleans or named levels such as
    "low", "medium", "high"; `[false]` means no thinking). `known` is False when
    /api/show failed or gave no capabilities: Loki then assumes tools, no thinking and no
    vision, and falls back to prompted tools if the server refuses them.
    """

    name: str
    capabilities: frozenset[str] = frozenset({"completion", "tools"})
    think_values: tuple[ThinkValue, ...] = ()
    think_default: ThinkValue | None = None
    family: str = ""
    parameter_size: str = ""
    quantization: str = ""
    context_length: int | None = None
    known: bool = True
    # the context the server runs the model with when a request sends no num_ctx: the
    # Modelfile's `num_ctx` parameter, and the server's own default (core.llm.context_size)
    modelfile_ctx: int | None = None
    server_ctx: int | None = None
    # What the chat template does (core.llm.template): `system_slot` False: the system text
    # would be dropped (Loki folds it into the first message); `chat_template` False: no chat
    # structure at all (a base model). None: not known (an OpenAI-compatible server).
    system_slot: bool | None = None
    chat_template: bool | None = None

    @classmethod
    def assumed(cls, name: str) -> ModelProfile:
        """The profile of a model /api/show told nothing about."""
        return cls(name=name, known=False)

    @property
    def tools(self) -> bool:
        return "tools" in self.capabilities

    @property
    def thinking(self) -> bool:
        if self.think_values and not any(
            v is True or isinstance(v, str) for v in self.think_values
        ):
            return False  # `values: [false]`: the model cannot think
        return "thinking" in self.capabilities

    @property
    def vision(self) -> bool:
        return "vision" in self.capabilities

    @property
    def for_chat(self) -> bool:
        """Offered for chat: every model but the embedding-only ones."""
        return "completion" in self.capabilities or "embedding" not in self.capabilities

    @property
    def think_levels(self) -> tuple[str, ...]:
        """The named thinking levels the model lists, in its order (may be empty)."""
        return tuple(v for v in self.think_values if isinstance(v, str))


class ChatBackend(Protocol):
    host: str

    async def list_models(self) -> list[ModelInfo]: ...

    async def context_length(self, model: str) -> int | None:
        """The longest context the model supports; None when the server does not say.
        Raises BackendError when the server cannot be asked (nothing to remember then)."""
        ...

    async def model_profile(self, model: str) -> ModelProfile:
        """What the model can do (/api/show). A model the server cannot describe gets
        `ModelProfile.assumed`; raises BackendUnreachable when nothing answers."""
        ...

    def chat(
        self,
        *,
        model: str,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]],
        options: dict[str, Any],
        think: ThinkValue | None = None,
    ) -> AsyncIterator[ChatChunk]:
        """Stream one reply. `think` None leaves it out of the request (the model's default).
        Raises ToolsUnsupported / ThinkingUnsupported / ContextOverflow / other
        BackendErrors, each with one sentence for a human."""
        ...


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
    names a workspace file the tool wrote (so the harness can check it). `images` are
    images the tool returned (an MCP screenshot): a vision model receives them as
    images; `output` then already names each one in a short placeholder. `change` is the
    file change a write or edit made (its diff card), `check_report` the report run_check
    made itself, `shell_changes` the files a command changed. `extra` holds what only
    travels along for people and logs (an MCP call's server and time).
    """

    ok: bool
    output: str
    summary: str = ""
    changed_path: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    images: tuple[ImageAttachment, ...] = ()
    change: FileChange | None = None
    check_report: CheckReport | None = None
    shell_changes: tuple[ChangedFile, ...] = ()


@runtime_checkable
class ImageProbe(Protocol):
    """A backend whose server does not say whether a model reads images (OpenAI-compatible):
    it can ask, once, by sending the model a tiny image."""

    async def accepts_images(self, model: str) -> bool: ...


class ToolSource(Protocol):
    """A family of tools (the native ones, or the MCP servers)."""

    async def prepare(self) -> list[str]:
        """Get ready for a turn; returns notices for the user."""
        ...

    def specs(self) -> list[ToolSpec]: ...

    async def call(self, name: str, args: dict[str, Any]) -> ToolOutcome: ...


class Approver(Protocol):
    """Asks the user before a shell command runs, and before a file is written when the
    "Demander avant d'écrire" setting is on (`approve_write`, with the change's diff).
    Refusing is a normal answer."""

    async def approve_shell(self, command: str, cwd: Path) -> bool: ...

    async def approve_write(self, change: FileChange, cwd: Path) -> bool: ...

    async def approve_unkept_write(self, path: str, reason: str, cwd: Path) -> bool:
        """The previous state of `path` could not be kept (`reason`, one sentence): write
        it anyway, with no way back (« écrire quand même, sans retour possible »)? Once."""
        ...


# --- storage ----------------------------------------------------------------------


class StoreUnavailable(Exception):
    """The conversation history cannot be opened (locked, unreadable, too new): the message
    is one sentence for a human, and the file is left untouched."""


class UnknownConversation(LookupError):
    """No conversation has this id (one sentence for a human)."""


class ImportRefused(Exception):
    """An import that would overwrite a conversation already kept: nothing was written."""


class NotInConversation(ValueError):
    """A message id that is not one of the conversation's (one sentence for a human)."""


class TurnLock(Protocol):
    """One conversation's turn, held by one turn at a time across processes."""

    def release(self) -> None:
        """Let the next turn of this conversation run, once every write of this turn is
        stored (a store that writes later must release after them). Idempotent."""
        ...


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

    def start_answer(self, conversation_id: str, *, turn: int | None = None) -> int:
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
        meta: MessageMeta | None = None,
        thinking: str = "",
        thinking_seconds: float | None = None,
    ) -> None: ...

    def list_conversations(
        self, query: str = "", workspace: str | None = None
    ) -> list[ConversationInfo]:
        """Pinned first, then the latest; `query` searches titles and every branch's
        messages, `workspace` keeps one folder's conversations."""
        ...

    # --- branches: `messages` and `page` read the branch shown; every message appended
    # follows its last message. Nothing is deleted by a branch change.

    def last_turn(self, conversation_id: str) -> int:
        """The highest turn number used in the conversation, over every branch."""
        ...

    def rewind(self, conversation_id: str, message_id: int | None) -> None:
        """End the branch shown at `message_id` (None: before the first message), so the
        next message starts a sibling branch; raises NotInConversation."""
        ...

    def switch_branch(self, conversation_id: str, message_id: int) -> None:
        """Show the branch through `message_id` (and on through its latest messages);
        raises NotInConversation."""
        ...

    def branches(
        self, conversation_id: str, among: Sequence[int] | None = None
    ) -> dict[int, Branches]:
        """The messages of the branch shown (or just those of `among`, a page's) that have
        other versions, by message id."""
        ...

    def set_pinned(self, conversation_id: str, pinned: bool) -> None: ...

    def export(self, conversation_id: str) -> ConversationExport:
        """Everything held about the conversation, every branch, images included."""
        ...

    def import_conversation(self, conversation: ConversationExport) -> str:
        """Store an exported conversation whole, or nothing (raises ImportRefused when its
        id is taken); returns its id."""
        ...

    def rename(self, conversation_id: str, title: str) -> None: ...

    def delete(self, conversation_id: str) -> None:
        """Delete the conversation, its messages and its image files."""
        ...

    def take_notices(self) -> list[str]:
        """Notices from opening the store (a corrupt file moved aside), given once."""
        ...

    def lock_turn(self, conversation_id: str) -> TurnLock | None:
        """Take the conversation's turn lock without waiting; None while another turn (in
        this process or another) holds it. A holder that dies frees it."""
        ...

    def close(self) -> None:
        """Write what is pending and close the store (at exit; nothing is called after)."""
        ...


class SettingsStore(Protocol):
    """The one owner of the settings file: every writer (the window, the MCP service, the
    CLI in another process) changes it through `update`, never by saving a copy it read."""

    def load(self) -> Settings: ...

    def update(self, change: Callable[[Settings], None]) -> Settings:
        """Read the current settings, apply `change` to them and write them, under a lock
        held against this process's other threads and other processes, so that concurrent
        writers never lose each other's changes. A change that raises writes nothing.
        Returns the settings written."""
        ...

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


# --- checkpoints (core.changes) ---------------------------------------------------

# A file's state in a checkpoint that was not kept (bigger than a checkpoint may hold).
NOT_KEPT = "-"


@dataclass(frozen=True, slots=True)
class FileCheckpoint:
    """One file a turn changed. `before` is its state before the turn and `after` the state
    the turn left: a blob digest (sha256 hex), None when the file did not exist, or NOT_KEPT.
    `restored` is True while the change is undone. `call_id` is the tool call that first
    changed it (the window places the turn's undo button after that call's card)."""

    path: str  # workspace-relative, forward slashes
    before: str | None
    after: str | None
    restored: bool = False
    call_id: str | None = None


@dataclass(frozen=True, slots=True)
class TurnCheckpoint:
    """The files one turn of a conversation changed (turn: 1 for the first user message)."""

    conversation_id: str
    turn: int
    workspace: str
    created_at: float
    files: tuple[FileCheckpoint, ...]


class CheckpointStore(Protocol):
    """Files' previous states, by conversation and turn: blobs stored once by content,
    an index of which turn changed which file. Safe to call from several threads."""

    def put_blob(self, digest: str, data: bytes) -> None:
        """Keep `data` under its sha256 `digest` (a no-op when it is kept already)."""
        ...

    def read_blob(self, digest: str) -> bytes:
        """The bytes kept under `digest`; raises OSError when they are gone."""
        ...

    def record_before(
        self,
        conversation_id: str,
        turn: int,
        workspace: str,
        path: str,
        before: str | None,
        call_id: str | None,
        *,
        after: str | None,
    ) -> None:
        """The state of `path` before the turn changed it, and the one the write is about
        to leave; only the first one of a turn counts (a file written twice keeps its state
        from before the first write)."""
        ...

    def record_after(self, conversation_id: str, turn: int, path: str, after: str | None) -> None:
        """The state the turn left `path` in (after each of its writes)."""
        ...

    def set_restored(self, conversation_id: str, turn: int, path: str, restored: bool) -> None: ...

    def turns(self, conversation_id: str) -> list[TurnCheckpoint]:
        """The conversation's turns that changed files, oldest first."""
        ...

    def latest_conversation(self) -> str | None:
        """The conversation whose files were changed last (None: no checkpoint at all)."""
        ...

    def delete_conversation(self, conversation_id: str) -> None: ...

    def evict(self, budget_bytes: int, keep: tuple[str, int] | None) -> list[tuple[str, int]]:
        """Drop the oldest turns (never `keep`) until the kept blobs fit `budget_bytes`;
        returns the (conversation, turn) pairs dropped."""
        ...

    def take_notices(self) -> list[str]:
        """Notices from opening the store (an unreadable index moved aside), given once."""
        ...

    def close(self) -> None: ...


# --- memories (core.memory) -------------------------------------------------------

# Where a memory comes from: the person asked ("retiens que…"), it was typed in the memory
# panel or `memory add`, or it was extracted at the end of a conversation.
MemorySource = Literal["asked", "typed", "extracted"]


@dataclass(frozen=True, slots=True)
class Memory:
    """One thing Loki remembers, in the person's words."""

    id: int
    text: str
    source: MemorySource
    created_at: float
    conversation_id: str | None = None


@dataclass(frozen=True, slots=True)
class VectorRows:
    """Every stored vector of one embedding model: `ids[i]` owns `data[i*dim*4:(i+1)*dim*4]`
    (float32, little-endian, unit length)."""

    ids: tuple[int, ...]
    data: bytes
    dim: int


class MemoryStore(Protocol):
    """Memories, their words (`terms`: the search form the core computed) and their vectors
    (one set per embedding model). Safe to call from several threads."""

    def add(
        self, text: str, terms: str, *, source: MemorySource, conversation_id: str | None = None
    ) -> Memory: ...

    def update(self, memory_id: int, text: str, terms: str) -> Memory | None:
        """Change a memory's text (its vectors are dropped); None when it does not exist."""
        ...

    def delete(self, memory_id: int) -> bool: ...

    def get(self, memory_id: int) -> Memory | None: ...

    def find_text(self, text: str) -> Memory | None:
        """The memory with exactly this text (so the same fact is not kept twice)."""
        ...

    def recent(self, limit: int = 1000, offset: int = 0) -> list[Memory]:
        """The newest first."""
        ...

    def count(self) -> int: ...

    def version(self) -> int:
        """A number that changes whenever the memories change (in this or another process)."""
        ...

    def search_terms(self, terms: Sequence[str], limit: int) -> list[tuple[int, float]]:
        """Memories holding any of `terms`, best first, as (id, score) with score > 0."""
        ...

    def put_vectors(self, model: str, dim: int, rows: Sequence[tuple[int, bytes]]) -> None: ...

    def vectors(self, model: str) -> VectorRows: ...

    def without_vectors(self, model: str, limit: int) -> list[Memory]:
        """Memories that have no vector of `model` yet (oldest first)."""
        ...

    def drop_vectors(self, model: str) -> None: ...

    def take_notices(self) -> list[str]:
        """Notices from opening the store (a corrupt file moved aside), given once."""
        ...

    def close(self) -> None: ...


# --- workspace knowledge (core.knowledge) ----------------------------------------


@dataclass(frozen=True, slots=True)
class Passage:
    """A piece of a workspace file: `path` relative to the workspace, `line` its first line."""

    id: int
    path: str
    line: int
    text: str


class PassageStore(Protocol):
    """One workspace's index: its files' states, their passages with terms (FTS5) and
    vectors (one set per embedding model). Safe to call from several threads."""

    def files(self) -> dict[str, tuple[float, int]]:
        """Every indexed file: (mtime, size) when it was read."""
        ...

    def replace(
        self, path: str, mtime: float, size: int, passages: Sequence[tuple[int, str, str]]
    ) -> None:
        """The file's passages (line, text, terms) instead of those it had."""
        ...

    def remove(self, path: str) -> None: ...

    def count(self) -> int: ...

    def version(self) -> int: ...

    def passage(self, passage_id: int) -> Passage | None: ...

    def search_terms(self, terms: Sequence[str], limit: int) -> list[tuple[int, float]]: ...

    def put_vectors(self, model: str, dim: int, rows: Sequence[tuple[int, bytes]]) -> None: ...

    def vectors(self, model: str) -> VectorRows: ...

    def without_vectors(self, model: str, limit: int) -> list[Passage]: ...

    def drop_vectors(self, model: str) -> None: ...

    def take_notices(self) -> list[str]: ...

    def close(self) -> None: ...
