"""What the window and the quick prompt share: settings, history, the model server, MCP servers.

Only core objects live here; widgets get agents from `make_agent` and never talk to
Ollama or an MCP server themselves.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from loki_desktop.core.agent import Agent
from loki_desktop.core.assembly import TurnOptions, build_agent
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.mcp.service import McpService
from loki_desktop.core.ports import Approver, ConversationStore
from loki_desktop.core.services import Services
from loki_desktop.core.settings import Settings, resolve_host


class Runtime:
    """The core objects of one window session, built once and closed at exit."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.settings: Settings = services.settings.load()
        self.store: ConversationStore = services.open_history()
        self.host = resolve_host(None, self.settings)
        self.backend = OllamaBackend(self.host)
        self.mcp = McpService(services.settings, services.secrets)
        # said once, at the start of the next turn (a corrupt file moved aside, a bad entry)
        self.pending_notices: list[str] = [
            *services.settings.take_notices(),
            *self.store.take_notices(),
            *self.mcp.notices,
        ]
        self._closing: set[asyncio.Task[None]] = set()

    # --- agents -----------------------------------------------------------------------

    def workspace(self) -> Path | None:
        folder = self.settings.workspace
        return Path(folder) if folder and Path(folder).is_dir() else None

    def make_agent(self, approver: Approver, model: str = "") -> Agent:
        agent = build_agent(
            settings=self.settings,
            backend=self.backend,
            store=self.store,
            workspace=self.workspace(),
            approver=approver,
            options=TurnOptions(
                model=model or self.settings.model,
                user_skills_dir=self.services.user_skills_dir,
                extra_sources=[self.mcp.manager],
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
        old, self.backend, self.host = self.backend, OllamaBackend(resolved), resolved
        task = asyncio.ensure_future(old.close())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    # --- closing ----------------------------------------------------------------------

    async def aclose(self) -> None:
        with contextlib.suppress(Exception):
            await self.mcp.aclose()
        with contextlib.suppress(Exception):
            await self.backend.close()
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)
        close = getattr(self.store, "close", None)
        if callable(close):
            close()
