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
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from loki_desktop.core.i18n import _
from loki_desktop.core.model_servers import ModelServer, current_server, servers
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
from loki_desktop.core.settings import Settings
from loki_desktop.core.settings_changes import lay_changes, snapshot, take_in

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator

    from loki_desktop.core.agent import Agent
    from loki_desktop.core.llm.budget import ContextBudget
    from loki_desktop.core.llm.ollama import OllamaBackend
    from loki_desktop.core.llm.openai_backend import OpenAIBackend
    from loki_desktop.core.llm.probe import ProbeResult
    from loki_desktop.core.llm.pull import PullProgress
    from loki_desktop.core.mcp.host import McpHost

    Backend = OllamaBackend | OpenAIBackend
    from loki_desktop.core.knowledge.index import KnowledgeTools
    from loki_desktop.core.mcp.service import McpService
    from loki_desktop.core.memory.recall import Memories
    from loki_desktop.core.tools.preview import PreviewKeeper

log = logging.getLogger(__name__)

# Listing the models is instant on a working server; one that accepts the connection but
# never answers would otherwise hold the check for the chat read timeout (10 minutes).
MODELS_TIMEOUT_S = 10.0
PROBED_MODELS = 3  # the server editor's "Vérifier les consignes" asks at most this many
# the window's background index build embeds this many batches of 64 passages at most (the
# rest at the next builds; words find them meanwhile)
BUILD_EMBED_BATCHES = 200

# The settings the window never writes: the MCP service (core.mcp.service) owns them.
MCP_OWNED = frozenset({"mcp_servers"})


class OllamaNoAnswer(BackendError):
    """The server took the connection but did not answer in time."""


class Runtime:
    """The core objects of one window session, built once and closed at exit."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.settings: Settings = services.settings.load()
        # the settings as last read or written: save_settings writes only what changed since
        self._settings_read = snapshot(self.settings)
        self.store: ConversationStore = services.open_window_history()
        # the server of the selected model (Réglages → Général lists them; the picker picks)
        self.server: ModelServer = current_server(self.settings)
        self.host = self.server.url
        self._backend: Backend | None = None
        self._budget: ContextBudget | None = None  # per server: reset with the host
        self._mcp: McpService | None = None
        # the workspace served on loopback while the browser server is on (Aperçu, the model)
        self.preview: PreviewKeeper | None = None  # made at its first use
        # what opening the files found (a corrupt one moved aside): the window shows it at once
        self.startup_notices: list[str] = [
            *services.settings.take_notices(),
            *self.store.take_notices(),
        ]
        # said once, at the start of the next turn (a bad MCP entry, a skipped import)
        self.pending_notices: list[str] = []
        # replaced by a host change, closed at exit: running turns may still be using them
        self._retired: list[Backend] = []
        self._others: dict[str, tuple[Backend, ContextBudget]] = {}  # Régénérer avec…
        # conversations with a turn under way, in the window or the quick prompt (TurnRunner)
        self.running_turns: set[str] = set()
        self.models_timeout_s = MODELS_TIMEOUT_S
        # who answers the MCP servers' own requests (the window's dialogs and cards)
        self.mcp_host: McpHost | None = None
        self._checkpoints: CheckpointStore | None = None
        self._checkpoints_failed = False
        # what Loki remembers (core.memory), made at first use for the server and embedding
        # model of that moment; those replaced are closed at exit
        self._memories: Memories | None = None
        self._memories_key: tuple[ModelServer, str] | None = None
        self._memories_retired: list[Memories] = []
        self._memory_work: set[asyncio.Future[object]] = set()
        # the workspace's index (its search_workspace tool), one per folder opened
        self._knowledge: dict[Path, KnowledgeTools] = {}

        self._agent_loaded = False  # load_agent ran

    async def load(self) -> None:
        """Import the model servers' clients in a worker thread, so the window keeps painting
        and answering meanwhile (the first model list would import them in the GUI thread)."""
        await asyncio.to_thread(_import_modules, SERVER_MODULES)
        memories = self.memories
        if memories is not None:
            # the embedded model loads now, on a worker thread, if there are memories to
            # recall (so the first turn does not wait for it); never before the first frame
            self._keep_work(asyncio.ensure_future(memories.warm()))

    async def load_agent(self) -> None:
        """Import the agent's modules in a worker thread before the first turn builds one.
        Not at start: a window left idle would hold them (~25 MB) for nothing."""
        if not self._agent_loaded:
            await asyncio.to_thread(_import_modules, AGENT_MODULES)
            self._agent_loaded = True

    @property
    def memories(self) -> Memories | None:
        """The memories, when the setting is on (None: nothing opened, nothing embedded)."""
        if not self.settings.memories or self.services.open_memories is None:
            return None
        key = (self.server, self.settings.embedding_model)
        if self._memories is None or key != self._memories_key:
            from loki_desktop.core.memory.setup import memories_for

            if self._memories is not None:
                self._memories_retired.append(self._memories)
            self._memories = memories_for(
                self.settings, self.server, self.services.open_memories, self.services.secrets
            )
            self._memories_key = key
        return self._memories

    def knowledge(self) -> KnowledgeTools | None:
        """The current workspace's index and tool, when the setting is on."""
        folder = self.workspace()
        if folder is None or not self.settings.workspace_index or self.services.open_index is None:
            return None
        if folder not in self._knowledge:
            from loki_desktop.core.knowledge.setup import knowledge_tools
            from loki_desktop.core.memory.setup import embedders_for

            memories = self.memories
            embedders = (
                memories.embedders
                if memories is not None
                else embedders_for(self.settings, self.server, self.services.secrets)
            )
            self._knowledge[folder] = knowledge_tools(folder, self.services.open_index, embedders)
        return self._knowledge[folder]

    async def build_index(self, progress: Callable[[int, int], None]) -> None:
        """Bring the workspace's index up to date in the background (files on a worker
        thread; every passage embedded), telling `progress` (files read, files to read)."""
        tools = self.knowledge()
        if tools is None:
            return
        try:
            await tools.knowledge.update(
                progress, embed_batches=BUILD_EMBED_BATCHES, background=True
            )
        except StoreUnavailable as exc:
            self.pending_notices.append(str(exc))
        finally:
            progress(0, 0)  # done: the line goes

    def forget_memory(self, memory_id: int) -> None:
        """*Oublier* on a « Mémorisé » card: the memory is deleted off the GUI thread."""
        memories = self.memories
        if memories is not None:
            self._keep_work(asyncio.ensure_future(memories.forget(memory_id)))

    def _keep_work(self, future: asyncio.Future[object]) -> None:
        self._memory_work.add(future)
        future.add_done_callback(self._memory_work.discard)

    @property
    def backend(self) -> Backend:
        if self._backend is None:
            from loki_desktop.core.llm.backends import make_backend

            self._backend = make_backend(self.server, self.services.secrets)
        return self._backend

    @property
    def ollama(self) -> OllamaBackend:
        """The current server as Ollama (pulling and deleting models exist only there)."""
        from loki_desktop.core.llm.ollama import OllamaBackend

        backend = self.backend
        if not isinstance(backend, OllamaBackend):
            raise BackendError(
                _(
                    "Le serveur {server} n'est pas un serveur Ollama : ses modèles se gèrent "
                    "sur le serveur lui-même."
                ).format(server=self.server.name)
            )
        return backend

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
            from loki_desktop.ui.qt_helpers import open_in_browser

            self._mcp = McpService(
                self.services.settings,
                self.services.secrets,
                data_home=self.services.data_home,
            )
            # a signed-in server asking for more scopes opens the browser while the person
            # uses the window; a first sign-in waits for their click (ui.settings.mcp_sign_in)
            self._mcp.manager.browser = open_in_browser
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

    def sync_preview(self) -> str | None:
        """Serve the workspace while Playwright is on (and stop otherwise); its URL, which the
        model reads in the browser's navigate tool."""
        from loki_desktop.core.mcp.browser import browser_enabled
        from loki_desktop.core.tools.preview import PreviewKeeper

        servers = self.services.settings.load().mcp_servers
        folder = self.workspace() if browser_enabled(servers) else None
        if self.preview is None:
            if folder is None:
                return None
            self.preview = PreviewKeeper()
        url = self.preview.follow(folder)
        if self._mcp is not None:
            self._mcp.manager.preview_url = url
        return url

    def new_conversation(self, first_message: str) -> str:
        """Store a new conversation, titled after its first message, in the current workspace."""
        from loki_desktop.core.titles import conversation_title

        workspace = self.workspace()
        return self.store.create(
            conversation_title(first_message), str(workspace) if workspace else None
        )

    def make_agent(
        self,
        approver: Approver,
        conversation_id: str | None = None,
        *,
        server: str = "",
        model: str = "",
    ) -> Agent:
        """An agent for one turn, with the saved model (the window's picker sets it), or
        `model` on the configured server named `server` (Régénérer avec…); with the
        conversation's own instructions when it has some."""
        from loki_desktop.core.assembly import TurnOptions, build_agent

        mcp = self.mcp  # built first: its notices join the pending ones
        self.sync_preview()
        backend, budget = self.backend, self.budget
        if server and server != self.server.name:
            backend, budget = self._other_server(server)
        agent = build_agent(
            settings=self.settings,
            backend=backend,
            store=self.store,
            workspace=self.workspace(),
            approver=approver,
            options=TurnOptions(
                model=model or self.settings.model,
                user_skills_dir=self.services.user_skills_dir,
                extra_sources=[mcp.manager],
                budget=budget,
                system=self.settings.conversation_instructions.get(conversation_id or ""),
                memories=self.memories,
                knowledge=self.knowledge(),
            ),
            checkpoints=self.checkpoints,
        )
        agent.pending_notices += self.pending_notices
        self.pending_notices = []
        return agent

    def _other_server(self, name: str) -> tuple[Backend, ContextBudget]:
        """A configured server other than the current one, for one regenerated answer (its
        client kept, and closed with the others at the end)."""
        from loki_desktop.core.llm.backends import make_backend
        from loki_desktop.core.llm.budget import ContextBudget
        from loki_desktop.core.model_servers import servers

        if name not in self._others:
            server = next((s for s in servers(self.settings) if s.name == name), None)
            if server is None:
                return self.backend, self.budget  # removed meanwhile: the current one
            backend = make_backend(server, self.services.secrets)
            self._retired.append(backend)
            self._others[name] = (backend, ContextBudget())
        return self._others[name]

    # --- the model server ---------------------------------------------------------------

    async def list_models(self) -> list[ModelInfo]:
        """The models of the current server."""
        return await self._list_models(self.backend, self.host)

    def pull_model(self, name: str) -> AsyncGenerator[PullProgress, None]:
        """The throttled progress (<= 10 a second) of pulling `name` on the current server;
        closing the iterator cancels the pull (Ollama resumes it next time)."""
        from loki_desktop.core.llm.pull import followed

        return followed(self.ollama.pull(name))

    async def delete_model(self, name: str) -> None:
        await self.ollama.delete(name)

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

    async def takes_images(self, model: str) -> bool:
        """Whether `model` reads images; a server that does not say is asked once."""
        try:
            return await self.budget.profiles.takes_images(self.backend, model)
        except BackendError:
            return False

    def profile_of(self, name: str) -> ModelProfile | None:
        """The profile already asked for, if any (no request)."""
        return self.budget.profiles.peek(self.host, name)

    async def probe_host(self, host: str) -> list[ModelInfo]:
        """The models of an Ollama `host`; the current server is kept."""
        return await self.probe_server(ModelServer("ollama", "", host))

    async def probe_server(self, server: ModelServer, key: str | None = None) -> list[ModelInfo]:
        """The models of `server` (Settings › Test the connection), with `key` when given
        (a key typed but not saved yet); the current server is kept."""
        from loki_desktop.core.llm.backends import make_backend

        backend = make_backend(server, self.services.secrets, key=key)
        try:
            return await self._list_models(backend, server.url, server.kind)
        finally:
            await backend.close()

    async def probe_instructions(
        self, server: ModelServer, key: str | None = None
    ) -> list[ProbeResult]:
        """Whether the models of `server` follow a system instruction (one short request
        each, the first PROBED_MODELS of them): the server editor's button."""
        from loki_desktop.core.llm.backends import make_backend
        from loki_desktop.core.llm.probe import probe_system

        backend = make_backend(server, self.services.secrets, key=key)
        try:
            models = await self._list_models(backend, server.url, server.kind)
            return [await probe_system(backend, m.name) for m in models[:PROBED_MODELS]]
        finally:
            await backend.close()

    async def other_servers_models(self) -> list[tuple[str, list[str] | str]]:
        """The models of every server but the current one, asked together (the picker
        groups them by server); a server that fails gives its sentence instead."""
        from loki_desktop.core.llm.backends import make_backend

        async def one(server: ModelServer) -> list[str] | str:
            backend = make_backend(server, self.services.secrets)
            try:
                return [m.name for m in await self._list_models(backend, server.url, server.kind)]
            except BackendError as exc:
                return str(exc)
            finally:
                await backend.close()

        others = [server for server in servers(self.settings) if server != self.server]
        found = await asyncio.gather(*(one(server) for server in others))
        return [(server.name, models) for server, models in zip(others, found, strict=True)]

    async def _list_models(
        self, backend: Backend, host: str, kind: str | None = None
    ) -> list[ModelInfo]:
        try:
            return await asyncio.wait_for(backend.list_models(), self.models_timeout_s)
        except TimeoutError:
            raise OllamaNoAnswer(
                _(
                    "Ollama ne répond pas à {host} : aucune réponse en {n} s. Il démarre "
                    "peut-être encore ; sinon, redémarrez-le, puis réessayez.",
                ).format(host=host, n=f"{self.models_timeout_s:g}")
                if (kind or self.server.kind) == "ollama"
                else _("Le serveur {host} ne répond pas : aucune réponse en {n} s.").format(
                    host=host, n=f"{self.models_timeout_s:g}"
                )
            ) from None

    # --- settings ---------------------------------------------------------------------

    def save_settings(self) -> None:
        """Write what the window changed in `self.settings` since it last read or wrote them,
        over the file's current content (core.settings_changes): what the MCP service or
        another process wrote meanwhile is kept, and taken into `self.settings`. MCP entries
        are the service's alone."""
        read, changed = self._settings_read, self.settings
        written = self.services.settings.update(
            lambda current: lay_changes(read, changed, current, leave=MCP_OWNED)
        )
        take_in(self.settings, written)
        self._settings_read = snapshot(written)

    def store_server_key(self, name: str, key: str) -> None:
        """Keep a server's API key in the keyring ("" forgets it). A keyring that cannot be
        used is said at the next turn; the key is then not kept (never in a file)."""
        from loki_desktop.core.model_servers import key_name
        from loki_desktop.core.ports import SecretStoreUnavailable

        try:
            if key:
                self.services.secrets.set(key_name(name), key)
            else:
                self.services.secrets.delete(key_name(name))
        except SecretStoreUnavailable as exc:
            self.pending_notices.append(str(exc))

    def set_host(self, host: str) -> None:
        """Use another Ollama server from the next request on (the single-host setting)."""
        self.settings.host = host
        self.apply_servers()

    def apply_servers(self, *, keys_changed: bool = False) -> None:
        """Follow the settings' servers and selected server from the next request on."""
        server = current_server(self.settings)
        if server == self.server and not keys_changed:
            return
        old, self._backend = self._backend, None
        self.server, self.host = server, server.url
        self._budget = None  # another server: its models' windows are asked anew
        if old is not None:
            self._retired.append(old)  # a running turn may still be streaming from it

    # --- closing ----------------------------------------------------------------------

    async def aclose(self) -> None:
        if self.preview is not None:  # a thread of this process: the port is freed here
            self.preview.close()
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
        for work in list(self._memory_work):
            work.cancel()
        for knowledge in self._knowledge.values():
            await knowledge.aclose()
        for memories in [*self._memories_retired, *([self._memories] if self._memories else [])]:
            await memories.aclose()
        self.store.close()  # on this thread: a plain History's connection belongs to it
        if self._checkpoints is not None:
            self._checkpoints.close()


# What the first model list imports, right after the first frame.
SERVER_MODULES = (
    "loki_desktop.core.llm.ollama",
    "loki_desktop.core.llm.backends",
    "loki_desktop.core.llm.openai_backend",
)
# What the first turn and its rendered answer import (~300 ms together); the workspace
# watcher imports its own when a workspace is open, the Markdown view at its first render.
AGENT_MODULES = (
    "loki_desktop.core.assembly",
    "loki_desktop.core.mcp.service",
    "loki_desktop.core.checks.registry",
    "loki_desktop.core.watch",
    "markdown_it",
    "pygments.formatters.html",
    "pygments.lexers",
)


def _import_modules(names: tuple[str, ...]) -> None:
    for name in names:
        importlib.import_module(name)


def _import_agent_modules() -> None:
    """Everything the start leaves for later (the start-imports test reads it)."""
    _import_modules(SERVER_MODULES + AGENT_MODULES)
