"""What the window and the quick prompt share: settings, history, the model server, MCP servers.

Only core objects live here; widgets get agents from `make_agent` and never talk to
Ollama or an MCP server themselves.

The Ollama client, the agent and the MCP service are imported and built on first use, after
the window is on screen: their imports (AGENT_MODULES below says what and how long) would
otherwise delay the first frame (see bench/, the Start figure).
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from loki_desktop.core.ports import (
    Approver,
    BackendError,
    CheckpointStore,
    ConversationStore,
    ModelInfo,
    ModelProfile,
    StoreUnavailable,
)
from loki_desktop.core.services import Services
from loki_desktop.core.settings import Settings, resolve_host

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator

    from loki_desktop.core.agent import Agent
    from loki_desktop.core.llm.budget import ContextBudget
    from loki_desktop.core.llm.ollama import OllamaBackend
    from loki_desktop.core.llm.pull import PullProgress
    from loki_desktop.core.mcp.host import McpHost
    from loki_desktop.core.mcp.service import McpService

log = logging.getLogger(__name__)

# Listing the models is instant on a working server; one that accepts the connection but
# never answers would otherwise hold the check for the chat read timeout (10 minutes).
MODELS_TIMEOUT_S = 10.0


class OllamaNoAnswer(BackendError):
    """The server took the connection but did not answer in time."""


class Runtime:
    """The core objects of one window session, built once and closed at exit."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.settings: Settings = services.settings.load()
        self.store: ConversationStore = services.open_window_history()
        self.host = resolve_host(None, self.settings)
        self._backend: OllamaBackend | None = None
        self._budget: ContextBudget | None = None  # per server: reset with the host
        self._mcp: McpService | None = None
        # what opening the files found (a corrupt one moved aside): the window shows it at once
        self.startup_notices: list[str] = [
            *services.settings.take_notices(),
            *self.store.take_notices(),
        ]
        # said once, at the start of the next turn (a bad MCP entry, a skipped import)
        self.pending_notices: list[str] = []
        # replaced by a host change, closed at exit: running turns may still be using them
        self._retired: list[OllamaBackend] = []
        # conversations with a turn under way, in the window or the quick prompt (TurnRunner)
        self.running_turns: set[str] = set()
        self.models_timeout_s = MODELS_TIMEOUT_S
        # who answers the MCP servers' own requests (the window's dialogs and cards)
        self.mcp_host: McpHost | None = None
        self._checkpoints: CheckpointStore | None = None
        self._checkpoints_failed = False

    async def load(self) -> None:
        """Import the Ollama client and the agent in a worker thread, so the window keeps
        painting and answering meanwhile (the first use would import them in the GUI thread)."""
        await asyncio.to_thread(_import_agent_modules)

    @property
    def backend(self) -> OllamaBackend:
        if self._backend is None:
            from loki_desktop.core.llm.ollama import OllamaBackend

            self._backend = OllamaBackend(self.host)
        return self._backend

    @property
    def budget(self) -> ContextBudget:
        """Context windows and model profiles of the current server (asked once per model)."""
        if self._budget is None:
            from loki_desktop.core.llm.budget import ContextBudget

            self._budget = ContextBudget()
        return self._budget

    @property
    def mcp(self) -> McpService:
        if self._mcp is None:
            from loki_desktop.core.mcp.service import McpService

            self._mcp = McpService(self.services.settings, self.services.secrets)
            self.pending_notices += self._mcp.notices
            self._answer_servers(self._mcp)
        return self._mcp

    def _answer_servers(self, service: McpService) -> None:
        """Servers' forms and sampling reach the window's host; sampling uses the model and
        server chosen at that moment; the workspace is their root."""
        from loki_desktop.core.mcp.sampling import Sampler

        client = service.manager.client
        client.host = self.mcp_host
        client.sampler = Sampler(lambda: (self.backend, self.settings.model), self.mcp_host)
        self.update_roots()

    def update_roots(self) -> None:
        """The workspace as the MCP servers' root (they are told when it changes)."""
        if self._mcp is not None:
            workspace = self.workspace()
            self._mcp.manager.set_roots([workspace] if workspace else [])

    @property
    def checkpoints(self) -> CheckpointStore | None:
        """Where turns keep the files' previous states (opened at first use; None when it
        cannot be: turns then run without, and the next one says why)."""
        if self._checkpoints is None and not self._checkpoints_failed:
            opener = self.services.open_checkpoints
            try:
                self._checkpoints = opener() if opener is not None else None
            except StoreUnavailable as exc:
                self.pending_notices.append(str(exc))
            if self._checkpoints is not None:
                self.pending_notices += self._checkpoints.take_notices()
            self._checkpoints_failed = self._checkpoints is None
        return self._checkpoints

    # --- agents -----------------------------------------------------------------------

    def workspace(self) -> Path | None:
        folder = self.settings.workspace
        return Path(folder) if folder and Path(folder).is_dir() else None

    def new_conversation(self, first_message: str) -> str:
        """Store a new conversation, titled after its first message, in the current workspace."""
        from loki_desktop.core.agent import conversation_title

        workspace = self.workspace()
        return self.store.create(
            conversation_title(first_message), str(workspace) if workspace else None
        )

    def make_agent(self, approver: Approver) -> Agent:
        """An agent for one turn, with the saved model (the window's picker sets it)."""
        from loki_desktop.core.assembly import TurnOptions, build_agent

        mcp = self.mcp  # built first: its notices join the pending ones
        agent = build_agent(
            settings=self.settings,
            backend=self.backend,
            store=self.store,
            workspace=self.workspace(),
            approver=approver,
            options=TurnOptions(
                model=self.settings.model,
                user_skills_dir=self.services.user_skills_dir,
                extra_sources=[mcp.manager],
                budget=self.budget,
            ),
            checkpoints=self.checkpoints,
        )
        agent.pending_notices += self.pending_notices
        self.pending_notices = []
        return agent

    # --- the model server ---------------------------------------------------------------

    async def list_models(self) -> list[ModelInfo]:
        """The models of the current server."""
        return await self._list_models(self.backend, self.host)

    def pull_model(self, name: str) -> AsyncGenerator[PullProgress, None]:
        """The throttled progress (<= 10 a second) of pulling `name` on the current server;
        closing the iterator cancels the pull (Ollama resumes it next time)."""
        from loki_desktop.core.llm.pull import followed

        return followed(self.backend.pull(name))

    async def delete_model(self, name: str) -> None:
        await self.backend.delete(name)

    async def model_profiles(self, names: list[str]) -> dict[str, ModelProfile]:
        """What each model can do (/api/show, asked once per model, together). A model the
        server cannot describe in time gets the assumed profile (tools, no thinking/vision)."""
        backend, profiles = self.backend, self.budget.profiles

        async def one(name: str) -> ModelProfile:
            try:
                return await asyncio.wait_for(profiles.get(backend, name), self.models_timeout_s)
            except (BackendError, TimeoutError):
                return ModelProfile.assumed(name)

        found = await asyncio.gather(*(one(name) for name in names))
        return dict(zip(names, found, strict=True))

    def profile_of(self, name: str) -> ModelProfile | None:
        """The profile already asked for, if any (no request)."""
        return self.budget.profiles.peek(self.host, name)

    async def probe_host(self, host: str) -> list[ModelInfo]:
        """The models of `host` (Settings › Test the connection); the current server is kept."""
        from loki_desktop.core.llm.ollama import OllamaBackend

        backend = OllamaBackend(host)
        try:
            return await self._list_models(backend, host)
        finally:
            await backend.close()

    async def _list_models(self, backend: OllamaBackend, host: str) -> list[ModelInfo]:
        try:
            return await asyncio.wait_for(backend.list_models(), self.models_timeout_s)
        except TimeoutError:
            raise OllamaNoAnswer(
                QCoreApplication.translate(
                    "Runtime",
                    "Ollama ne répond pas à {host} : aucune réponse en {n} s. Il démarre "
                    "peut-être encore ; sinon, redémarrez-le, puis réessayez.",
                ).format(host=host, n=f"{self.models_timeout_s:g}")
            ) from None

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
        if old is not None:
            self._retired.append(old)  # a running turn may still be streaming from it

    # --- closing ----------------------------------------------------------------------

    async def aclose(self) -> None:
        if self._mcp is not None:
            try:
                await self._mcp.aclose()
            except Exception:  # closing goes on: the history must still be closed
                log.exception("closing the MCP servers failed")
        backends = [*self._retired, *([self._backend] if self._backend is not None else [])]
        for backend in backends:
            try:
                await backend.close()
            except Exception:
                log.exception("closing the Ollama client of %s failed", backend.host)
        self.store.close()  # on this thread: a plain History's connection belongs to it
        if self._checkpoints is not None:
            self._checkpoints.close()


# What the first model list, turn, rendered answer and the workspace watcher import (~300 ms).
AGENT_MODULES = (
    "loki_desktop.core.llm.ollama",
    "loki_desktop.core.assembly",
    "loki_desktop.core.mcp.service",
    "loki_desktop.core.checks.registry",
    "loki_desktop.core.watch",
    "markdown_it",
    "pygments.formatters.html",
    "pygments.lexers",
)


def _import_agent_modules() -> None:
    for name in AGENT_MODULES:
        importlib.import_module(name)
