"""What the parts of an MCP server's card (sign-in, enterprise sign-in, sampling) reach of it.

The card (settings/mcp.py) builds these parts; they take the card as this Protocol, so a
part never imports the module of the whole that holds it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from PySide6.QtWidgets import QComboBox

from loki_desktop.core.mcp.service import McpService, ServerView
from loki_desktop.ui.qt_helpers import OwnedTasks


class SignInState(Protocol):
    """The sign-in row of a card, as another card's part sees it."""

    signed_in: bool

    def show_state(self) -> None: ...


class CardPage(Protocol):
    """The MCP page that holds the cards."""

    @property
    def service(self) -> McpService: ...
    @property
    def tasks(self) -> OwnedTasks: ...
    @property
    def cards(self) -> Mapping[str, ServerCardPart]: ...

    def run(
        self,
        action: Callable[[], Any],
        card: Any = None,
        *,
        then: Callable[[Any], None] | None = None,
        failed: Callable[[str], None] | None = None,
    ) -> asyncio.Task[bool]: ...

    def reload(self) -> None: ...


class ServerCardPart(Protocol):
    """One server's card."""

    @property
    def view(self) -> ServerView: ...
    @property
    def server_id(self) -> str: ...
    @property
    def page(self) -> CardPage: ...
    @property
    def sign_in_row(self) -> SignInState | None: ...

    sampling_combo: QComboBox | None

    def show_message(self, text: str, *, error: bool) -> None: ...
