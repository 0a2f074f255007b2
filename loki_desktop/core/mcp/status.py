"""What the window and `mcp list` show of a server: its state, its tools, their context cost."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

# "signin": an HTTP server wants the person to sign in (OAuth); not an error, nothing retries
ServerState = Literal["inactive", "connecting", "connected", "error", "signin"]


@dataclass(frozen=True, slots=True)
class ServerStatus:
    """One server's live state.

    `tools` are the names the model sees (`mcp_<server>_<tool>`); `schema_chars` and
    `schema_tokens` are what their definitions add to every model request, measured as the
    request carries them (slimmed by core.slim, tokens estimated by core.tokens).
    `schema_tokens` is None while the server has no tools in the prompt.
    """

    id: str
    label: str
    state: ServerState = "inactive"
    message: str = ""
    tools: tuple[str, ...] = ()
    schema_chars: int = 0
    schema_tokens: int | None = None

    @property
    def tool_count(self) -> int:
        return len(self.tools)


@dataclass(frozen=True, slots=True)
class TestResult:
    """The outcome of "Test": a connection made apart from the live sessions."""

    ok: bool
    message: str = ""
    tools: tuple[str, ...] = ()  # every tool the server offers (its own names)
    exposed: tuple[str, ...] = ()  # those that would reach the model
    tool_tokens: tuple[int, ...] = ()  # what each of `tools` adds to a request (after slimming)
    schema_chars: int = 0
    schema_tokens: int = 0
    seconds: float = 0.0

    __test__ = False  # not a pytest test class


StatusListener = Callable[[ServerStatus], None]
