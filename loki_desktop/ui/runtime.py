"""What the window and the quick prompt share: settings, history, the model server, MCP servers.

Only core objects live here; widgets get agents from `make_agent` and never talk to
Ollama or an MCP server themselves.

The Ollama client, the agent and the MCP service are imported and built on first use, after
the window is on screen: together they cost ~250 ms of imports (ollama, httpx, pydantic),
which would otherwise delay the first frame (see bench/, the Start figure).
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

from loki_desktop.core.ports import Approver, ConversationStore
from loki_desktop.core.services import Services
from loki_desktop.core.settings import Settings, resolve_host

if TYPE_CHECKING:
    from loki_desktop.core.agent import Agent
    from loki_desktop.core.llm.budget import ContextBudget
    from loki_desktop.core.llm.ollama import OllamaBackend
    from loki_desktop.core.mcp.service import McpService


class Runtime:
    """The core objects of one window session, built once and closed at exit."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.settings: Settings = services.settings.load()
        self.store: ConversationStore = services.open_history()
        self.host = resolve_host(None, self.settings)
        self._backend: OllamaBackend | None = None
        self._budget: ContextBudget | None = None  # per server: reset with the host
        self._mcp: McpService | None = None
        # said once, at the start of the next turn (a corrupt file moved aside, a bad entry)
        self.pending_notices: list[str] = [
            *services.settings.take_notices(),
            *self.store.take_notices(),
        ]
        self._closing: set[asyncio.Task[None]] = set()

    @property
    def backend(self) -> OllamaBackend:
        if self._backend is None:
            from loki_desktop.core.llm.ollama import OllamaBackend

            self._backend = OllamaBackend(self.host)
        return self._backend

    @property
    def mcp(self) -> McpService:
        if self._mcp is None:
            from loki_desktop.core.mcp.service import McpService

            self._mcp = McpService(self.services.settings, self.services.secrets)
            self.pending_notices += self._mcp.notices
        return self._mcp

    # --- agents -----------------------------------------------------------------------

    def workspace(self) -> Path | None:
        folder = self.settings.workspace
        return Path(folder) if folder and Path(folder).is_dir() else None

    def make_agent(self, approver: Approver, model: str = "") -> Agent:
        from loki_desktop.core.assembly import TurnOptions, build_agent
        from loki_desktop.core.llm.budget import ContextBudget

        mcp = self.mcp  # built first: its notices join the pending ones
        if self._budget is None:
            self._budget = ContextBudget()
        agent = build_agent(
            settings=self.settings,
            backend=self.backend,
            store=self.store,
            workspace=self.workspace(),
            approver=approver,
            options=TurnOptions(
                model=model or self.settings.model,
                user_skills_dir=self.services.user_skills_dir,
                extra_sources=[mcp.manager],
                budget=self._budget,
            ),
        )
        agent.pending_notices += self.pending_notices
        self.pending_notices = []
        return agent

    # --- settings ---------------------------------------------------------------------

    def save_settings(self) -> None:
        """Save the window's settings; MCP entries are the service's, so they are re-read."""
        current = self.services.settings.load()
        self.settings.mcp_servers = current.mcp_servers
        self.services.settings.save(self.settings)

    def set_host(self, host: str) -> None:
        """Use another Ollama server from the next request on."""
        self.settings.host = host
        resolved = resolve_host(None, self.settings)
        if resolved == self.host:
            return
        old, self._backend, self.host = self._backend, None, resolved
        self._budget = None  # another server: its models' windows are asked anew
        if old is None:
            return
        task = asyncio.ensure_future(old.close())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    # --- closing ----------------------------------------------------------------------

    async def aclose(self) -> None:
        if self._mcp is not None:
            with contextlib.suppress(Exception):
                await self._mcp.aclose()
        if self._backend is not None:
            with contextlib.suppress(Exception):
                await self._backend.close()
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)
        close = getattr(self.store, "close", None)
        if callable(close):
            close()
