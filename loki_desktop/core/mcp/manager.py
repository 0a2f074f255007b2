"""The MCP servers as one tool source: lazy start, bounded waits, backoff, status, clean close.

The `mcp` package is imported only when a server actually starts (see `_connection_class`):
with every server off, this module costs nothing and spawns nothing.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from loki_desktop.core.i18n import ngettext
from loki_desktop.core.mcp.browser import (
    NAVIGATE_TOOL,
    preview_instead_of_file,
    rewritten_note,
    with_preview,
)
from loki_desktop.core.mcp.catalogue import CATALOGUE, CATALOGUE_IDS, LaunchContext
from loki_desktop.core.mcp.client_side import ClientSide
from loki_desktop.core.mcp.config import McpConfigError, ServerConfig, parse_servers
from loki_desktop.core.mcp.convert import exposed, split_tool_name, to_spec
from loki_desktop.core.mcp.health import StartHealth
from loki_desktop.core.mcp.launch import Launch, build_launch
from loki_desktop.core.mcp.oauth_redirect import Browser
from loki_desktop.core.mcp.offers import (
    McpPrompt,
    McpResource,
    McpResourceTemplate,
    RenderedPrompt,
    ResourceContent,
)
from loki_desktop.core.mcp.status import ServerState, ServerStatus, StatusListener, TestResult
from loki_desktop.core.mcp.tool_check import MAX_NAMED
from loki_desktop.core.ports import SecretStore, ToolOutcome, ToolSpec

# summaries remember their facts: a reopened card is worded in the language of now
from loki_desktop.core.said import _
from loki_desktop.core.slim import tool_tokens, tools_cost

if TYPE_CHECKING:
    from loki_desktop.core.mcp.connection import Connection


log = logging.getLogger(__name__)

# The tool that reads a resource by its URI (a resource link a tool returned, or a resource a
# server lists), offered while a connected server has resources. No "mcp_" prefix: that one
# names a server's own tool.
READ_RESOURCE = "read_mcp_resource"
MAX_RESOURCE_CHARS = 100_000
CONNECT_WAIT_S = 10.0  # what the first message waits, at most, for all servers together
CALL_TIMEOUT_S = 30.0  # a tool call with no sign of life (a result or a progress report)
CALL_MAX_S = 600.0  # a call that keeps reporting progress, in all
HANDSHAKE_TIMEOUT_S = 60.0  # generous: `npx -y` may download the server first
BACKOFF_S = (5.0, 15.0, 60.0, 300.0)  # between retries of a failing server


_READ_RESOURCE_SPEC = ToolSpec(
    name=READ_RESOURCE,
    description=(
        "Read a resource of a connected MCP server by its URI: a resource link a tool "
        "returned, or one the server lists. Returns its text (and images for a vision model)."
    ),
    parameters={
        "type": "object",
        "properties": {"uri": {"type": "string", "description": "the resource's URI"}},
        "required": ["uri"],
    },
    source="mcp",
)


@dataclass
class _Slot:
    """What the manager knows of one enabled server between connections."""

    config: ServerConfig
    starting: asyncio.Task[None] | None = None  # reading its secrets, before connecting
    connection: Connection | None = None
    error: str = ""  # the last failure (kept while the next attempt waits)
    failures: int = 0
    retry_at: float = 0.0
    notified: bool = False  # this failure streak was told to the user already
    waited: bool = False  # a turn already waited for this connection
    signin: bool = False  # the server wants the person to sign in: not retried until then
    bad_told: bool = False  # the tools its listing described badly were named already


class McpManager:
    """Owns every MCP connection of the app (the window) or of one command (`ask`).

    As a ToolSource: `prepare()` starts what is due and waits for it (10 s at most in all),
    `specs()` lists the connected servers' tools, `call()` routes `mcp_<server>_<tool>`.
    Always `await aclose()` at the end: it stops every server and waits for their processes.
    """

    def __init__(
        self,
        servers: Mapping[str, ServerConfig],
        secrets: SecretStore,
        *,
        notices: list[str] | None = None,
        connect_wait: float = CONNECT_WAIT_S,
        call_timeout: float = CALL_TIMEOUT_S,
        handshake_timeout: float = HANDSHAKE_TIMEOUT_S,
        backoff: tuple[float, ...] = BACKOFF_S,
        data_home: Path | None = None,
    ) -> None:
        self.secrets = secrets
        # Loki's data folder: where a server's own files go (Playwright's output)
        self.context = LaunchContext(data_home)
        self.health = StartHealth(data_home)  # the last starts' failures, across processes
        # the workspace preview's address, told to the model in the browser's tool
        # descriptions while it runs (set by whoever runs the preview: window, `ask`)
        self.preview_url: str | None = None
        self.connect_wait = connect_wait
        self.call_timeout = call_timeout
        self.handshake_timeout = handshake_timeout
        self.backoff = backoff
        # shows an authorization page to the person (the window's system browser): a signed-in
        # server's step-up or lost grant asks them again; None: such a server ends in "signin"
        self.browser: Browser | None = None
        self._configs: dict[str, ServerConfig] = {}
        self._slots: dict[str, _Slot] = {}
        self._notices: list[str] = list(notices or [])
        self._listeners: list[StatusListener] = []
        self._closing: set[asyncio.Task[None]] = set()
        self._starting: set[asyncio.Task[None]] = set()
        self._routes: dict[str, tuple[str, str]] = {}  # model name -> (server id, tool name)
        # the routes of servers that went down (failure, call timeout) and will be restarted:
        # a later call of the same turn is told so, not "unknown tool"
        self._down: dict[str, tuple[str, str]] = {}
        self._specs: dict[str, list[ToolSpec]] = {}
        self._closed = False
        # who answers the servers' own requests (elicitation, sampling, roots): see set_host
        self.client = ClientSide()
        self.reload(servers)

    @classmethod
    def from_settings(
        cls, raw: Mapping[str, Any], secrets: SecretStore, **kwargs: Any
    ) -> McpManager:
        servers, notices = parse_servers(raw, CATALOGUE_IDS)
        return cls(servers, secrets, notices=notices, **kwargs)

    # --- configuration ------------------------------------------------------------------

    def reload(
        self, servers: Mapping[str, ServerConfig], restart: frozenset[str] = frozenset()
    ) -> None:
        """Take new settings: stop what was turned off or changed (in the background).

        `restart` names servers whose secrets changed (invisible in the config).
        """
        self._configs = dict(servers)
        self.client.set_policies({sid: config.sampling for sid, config in servers.items()})
        for server_id in list(self._slots):
            config = servers.get(server_id)
            slot = self._slots[server_id]
            if (
                config is None
                or not config.enabled
                or server_id in restart
                or config.launch_key() != slot.config.launch_key()
            ):
                self._drop(server_id)
            else:
                slot.config = config
        for server_id, config in servers.items():
            if config.enabled and server_id not in self._slots:
                self._slots[server_id] = _Slot(config)
                self._notify(server_id)

    @property
    def enabled_ids(self) -> list[str]:
        return list(self._slots)

    # --- ToolSource -----------------------------------------------------------------------

    async def prepare(self) -> list[str]:
        """Start due servers, wait for them (bounded), and say what the user should know."""
        await self.warm()
        notices, self._notices = self._notices, []
        return notices

    async def warm(self) -> None:
        """Start due servers and wait for them (bounded); their notices wait for the next turn.

        What the composer's "/" and "@" lists call first: they list what connected servers
        offer."""
        # the budget counts from here: importing the SDK at the first start is part of it
        deadline = time.monotonic() + self.connect_wait
        started = [slot for slot in self._slots.values() if self._due(slot)]
        for slot in started:
            self._start(slot)
            self._in_background_if_it_failed_lately(slot)
        waiting = [
            slot
            for slot in self._slots.values()
            if (slot.starting is not None or slot.connection is not None) and not slot.waited
        ]
        for slot in self._slots.values():
            slot.waited = True
        tasks = [asyncio.ensure_future(self._ready(slot)) for slot in waiting]
        if tasks:
            try:
                await asyncio.wait(tasks, timeout=max(0.0, deadline - time.monotonic()))
            finally:  # also when the turn is cancelled while waiting
                for task in tasks:
                    task.cancel()
        for slot in waiting:
            if self._connecting(slot):
                self._notices.append(
                    _(
                        "Le serveur MCP « {name} » démarre encore : ses outils seront disponibles "
                        "à un prochain message."
                    ).format(name=_label(slot.config))
                )

    def _in_background_if_it_failed_lately(self, slot: _Slot) -> None:
        """A server whose last start failed (in this process or an earlier one) starts
        without holding the message: its tools come if it answers."""
        if slot.failures:
            return  # failed here already: its notice is told by the failure itself
        failure = self.health.last_failure(slot.config.id)
        if failure is None or not failure.recent():
            return
        slot.waited = True
        name = _label(slot.config)
        if failure.failures >= 2:
            notice = _(
                "Le serveur MCP « {name} » ne répond pas au démarrage ({n} échecs de suite ; "
                "le dernier : {cause}). Testez-le ou désactivez-le (Réglages → MCP, ou "
                "loki-desktop mcp test {id} / mcp disable {id})."
            ).format(name=name, n=failure.failures, cause=failure.cause, id=slot.config.id)
        else:
            notice = _(
                "Le serveur MCP « {name} » n'a pas démarré la dernière fois ({cause}) : il "
                "démarre en arrière-plan, sans retenir ce message ; ses outils viendront s'il "
                "répond."
            ).format(name=name, cause=failure.cause)
        self._notices.append(notice)

    def connect(self, server_id: str) -> None:
        """Start one enabled server now if it is due (after a sign-in), without waiting."""
        slot = self._slots.get(server_id)
        if slot is not None and self._due(slot):
            self._start(slot)

    def specs(self) -> list[ToolSpec]:
        specs = [spec for specs in self._specs.values() for spec in specs]
        if self._resource_servers():
            specs.append(_READ_RESOURCE_SPEC)
        return with_preview(specs, self.preview_url) if self.preview_url else specs

    def is_enabled(self, server_id: str) -> bool:
        return server_id in self._slots

    def owns(self, name: str) -> bool:
        return name in self._routes or name in self._down or name == READ_RESOURCE

    async def call(self, name: str, args: dict[str, Any]) -> ToolOutcome:
        if name == READ_RESOURCE:
            return await self._read_resource_tool(str(args.get("uri", "")))
        server_id, tool = self._routes.get(name) or self._down[name]
        slot = self._slots.get(server_id)
        conn = slot.connection if slot else None
        if slot is not None and (conn is None or conn.state != "connected"):
            return self._restarting(slot)
        if conn is None or conn.state != "connected":
            return ToolOutcome(
                False,
                f"Error: the MCP server '{server_id}' is not connected; its tools are unavailable.",
                _("serveur {id} indisponible").format(id=server_id),
            )
        args, note = self._file_url_to_preview(tool, args)
        started = time.monotonic()
        limit_s = conn.launch.call_timeout_s or self.call_timeout
        max_s = max(conn.launch.call_max_s or CALL_MAX_S, limit_s)
        result = await conn.call(tool, args, limit_s=limit_s, max_s=max_s)
        elapsed = time.monotonic() - started
        return ToolOutcome(
            result.ok,
            note + result.text,
            _first_line(result.text),
            extra={"mcp_server": server_id, "mcp_tool": tool, "seconds": round(elapsed, 3)},
            images=result.images,
        )

    def _file_url_to_preview(self, tool: str, args: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """A browser asked to open a workspace file as file:// opens its preview URL instead
        (the browser blocks file://, and a later console read would report a blank page)."""
        url = args.get("url")
        if tool != NAVIGATE_TOOL or not self.preview_url or not self.client.roots:
            return args, ""
        if not isinstance(url, str):
            return args, ""
        served = preview_instead_of_file(url, self.client.roots[0], self.preview_url)
        if served is None:
            return args, ""
        return {**args, "url": served}, rewritten_note(url, served)

    def _resource_servers(self) -> list[Connection]:
        # every SDK server declares the capability: what counts is having any to read
        return [c for c in self._connected() if c.resources or c.resource_templates]

    async def read_by_uri(self, uri: str) -> ResourceContent:
        """A resource by its URI: from the server that lists it, else from each server with
        resources in turn (a link a tool returned, or a template's URI, names no server).
        Raises McpOfferError (one sentence) when none can read it."""
        from loki_desktop.core.mcp.connection import McpOfferError  # loaded: servers are on

        servers = self._resource_servers()
        listed = [c for c in servers if any(r.uri == uri for r in c.resources)]
        errors: list[str] = []
        for conn in listed or servers:
            launch = conn.launch
            resource = next(
                (r for r in conn.resources if r.uri == uri),
                McpResource(launch.server_id, launch.label, uri, uri),
            )
            try:
                return await conn.read_resource(resource)
            except McpOfferError as exc:
                errors.append(f"{launch.server_id} : {exc}")
        if not errors:
            raise McpOfferError(_("Aucun serveur MCP connecté ne propose de ressources."))
        raise McpOfferError(
            _("{uri} n'a pu être lu ({why}).").format(uri=uri, why="; ".join(errors))
        )

    async def _read_resource_tool(self, uri: str) -> ToolOutcome:
        """read_mcp_resource: the resource's text for the model, its images for a vision one."""
        from loki_desktop.core.mcp.connection import McpOfferError

        try:
            content = await self.read_by_uri(uri)
        except McpOfferError as exc:
            return ToolOutcome(
                False,
                f"Error: {uri} could not be read ({exc}).",
                _("{uri} illisible").format(uri=uri),
            )
        text = content.text
        if len(text) > MAX_RESOURCE_CHARS:
            text = text[:MAX_RESOURCE_CHARS] + "\n[… cut: the resource is longer]"
        if not text and content.images:
            text = "(no text: its images are attached)"
        return ToolOutcome(
            True,
            text,
            _("{uri} lu ({n} caractères)").format(uri=uri, n=len(content.text)),
            extra={"mcp_server": content.resource.server_id, "mcp_resource": uri},
            images=content.images,
        )

    def _restarting(self, slot: _Slot) -> ToolOutcome:
        """A call to a server that is down until its restart: what happens, and when to retry.

        A server restarts at the first message sent once its backoff is over (never in the
        middle of a turn, whose tools are fixed when it starts).
        """
        server_id = slot.config.id
        wait = max(0, math.ceil(slot.retry_at - time.monotonic())) if slot.error else 0
        when = f", sent in {wait} s or later" if wait else ""
        output = (
            f"Error: the MCP server '{server_id}' is restarting after a failure; its tools are "
            f"unavailable for the rest of this turn and come back at the user's next "
            f"message{when}. Do not call them again now: answer with what you have, and say "
            "what could not be done."
        )
        if wait:
            summary = _(
                "serveur « {name} » : il redémarre ; réessayez au prochain message, dans {n} s "
                "ou plus"
            ).format(name=_label(slot.config), n=wait)
        else:
            summary = _("serveur « {name} » : il redémarre ; réessayez au prochain message").format(
                name=_label(slot.config)
            )
        return ToolOutcome(False, output, summary, extra={"mcp_server": server_id})

    # --- what servers offer besides tools, and what they ask ----------------------------------

    def prompts(self) -> list[McpPrompt]:
        """The prompts of the connected servers (the composer's "/" list)."""
        return [p for conn in self._connected() for p in conn.prompts]

    def resources(self) -> list[McpResource]:
        """The resources of the connected servers (the composer's "@" picker)."""
        return [r for conn in self._connected() for r in conn.resources]

    def resource_templates(self) -> list[McpResourceTemplate]:
        """The resource templates of the connected servers (`mcp resources`)."""
        return [t for conn in self._connected() for t in conn.resource_templates]

    async def get_prompt(self, prompt: McpPrompt, arguments: dict[str, str]) -> RenderedPrompt:
        """Raises McpOfferError (one French sentence) when it cannot be rendered."""
        return await self._connection_of(prompt.server_id, prompt.server_label).get_prompt(
            prompt.name, arguments
        )

    async def read_resource(self, resource: McpResource) -> ResourceContent:
        """Raises McpOfferError (one French sentence) when it cannot be read."""
        conn = self._connection_of(resource.server_id, resource.server_label)
        return await conn.read_resource(resource)

    def set_roots(self, folders: Sequence[Path]) -> None:
        """The folders servers may work in (the workspace); connected servers are told."""
        roots = tuple(folders)
        if roots == self.client.roots:
            return
        self.client.roots = roots
        for conn in self._connected():
            task = asyncio.ensure_future(conn.roots_changed())
            self._starting.add(task)  # awaited by settle(), like a start
            task.add_done_callback(self._starting.discard)

    def _connected(self) -> list[Connection]:
        return [
            slot.connection
            for slot in self._slots.values()
            if slot.connection is not None and slot.connection.state == "connected"
        ]

    def _connection_of(self, server_id: str, label: str) -> Connection:
        slot = self._slots.get(server_id)
        conn = slot.connection if slot else None
        if conn is None or conn.state != "connected":
            from loki_desktop.core.mcp.connection import McpOfferError

            raise McpOfferError(
                _("Le serveur MCP « {name} » n'est pas connecté.").format(name=label)
            )
        return conn

    # --- status -------------------------------------------------------------------------------

    def status(self, server_id: str) -> ServerStatus:
        config = self._configs.get(server_id)
        label = _label(config) if config else server_id
        slot = self._slots.get(server_id)
        if slot is None:
            return ServerStatus(server_id, label)
        conn = slot.connection
        state: ServerState = "inactive"
        message = ""
        if self._connecting(slot):
            state = "connecting"
        elif conn is not None and conn.state == "connected":
            state = "connected"
        elif slot.error:
            state, message = ("signin" if slot.signin else "error"), slot.error
        specs = self._specs.get(server_id, [])
        chars, tokens = tools_cost(specs)
        return ServerStatus(
            server_id,
            label,
            state,
            message,
            tuple(spec.name for spec in specs),
            chars,
            tokens if specs else None,
        )

    def statuses(self) -> list[ServerStatus]:
        return [self.status(server_id) for server_id in self._configs]

    def subscribe(self, listener: StatusListener) -> Callable[[], None]:
        """Call `listener(status)` on every change of a server; returns the unsubscribe."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    # --- test -----------------------------------------------------------------------------------

    async def test(self, config: ServerConfig, limit_s: float | None = None) -> TestResult:
        """Connect once, apart from the live sessions; the connection closes in the background."""
        started = time.monotonic()
        try:
            launch = await asyncio.to_thread(build_launch, config, self.secrets, self.context)
        except McpConfigError as exc:
            return TestResult(False, str(exc)[:1].upper() + str(exc)[1:])
        conn = _connection_class()(
            launch, handshake_timeout=limit_s or self.handshake_timeout, secrets=self.secrets
        )
        conn.start()
        try:
            await conn.ready.wait()
        finally:
            self._close_in_background(conn)
        seconds = time.monotonic() - started
        if conn.state != "connected":
            return TestResult(False, conn.message or _("Connexion interrompue."), seconds=seconds)
        specs = [to_spec(config.id, tool) for tool in exposed(conn.tools, launch.expose)]
        chars, tokens = tools_cost(specs)
        return TestResult(
            True,
            tools=tuple(tool.name for tool in conn.tools),
            exposed=tuple(tool.name for tool in exposed(conn.tools, launch.expose)),
            tool_tokens=tuple(tool_tokens(to_spec(config.id, tool)) for tool in conn.tools),
            schema_chars=chars,
            schema_tokens=tokens,
            seconds=seconds,
        )

    # --- closing ----------------------------------------------------------------------------

    async def sign_in(self, config: ServerConfig, browser: Browser, timeout_s: float) -> TestResult:
        """One connection that may ask the person (their browser) to sign in; its tokens land
        in the keyring. Closed once connected: the live connection restarts with them."""
        started = time.monotonic()
        try:
            launch = await asyncio.to_thread(build_launch, config, self.secrets)
        except McpConfigError as exc:
            return TestResult(False, str(exc)[:1].upper() + str(exc)[1:])
        conn = _connection_class()(
            launch,
            handshake_timeout=timeout_s + self.handshake_timeout,
            secrets=self.secrets,
            browser=browser,
        )
        conn.start()
        try:
            await conn.ready.wait()
        finally:
            # closed before the live connection starts: it gets the loopback port back, so
            # the client registered for that redirect URI is reused (a new registration is a
            # new client, whose tokens another client's session would not accept)
            await conn.aclose()
        seconds = time.monotonic() - started
        if conn.state != "connected":
            return TestResult(False, conn.message, seconds=seconds)
        return TestResult(True, tools=tuple(t.name for t in conn.tools), seconds=seconds)

    async def aclose(self) -> None:
        """Stop every server and wait until their processes are gone."""
        self._closed = True
        for server_id in list(self._slots):
            self._drop(server_id, keep_slot=True)
        await self.settle()

    async def settle(self) -> None:
        """Wait for the closes running in the background (servers turned off, tests, failures).

        The asyncio loop must keep running while a server closes: a caller about to stop its
        loop (or a test about to end) awaits this first.
        """
        while self._closing or self._starting:
            await asyncio.gather(*self._closing, *self._starting, return_exceptions=True)

    # --- inside -----------------------------------------------------------------------------

    def _due(self, slot: _Slot) -> bool:
        if self._closed or slot.starting is not None or slot.connection is not None:
            return False
        if slot.signin:
            return False  # only the person's sign-in (which restarts the slot) helps
        return not slot.error or time.monotonic() >= slot.retry_at

    @staticmethod
    def _connecting(slot: _Slot) -> bool:
        conn = slot.connection
        return slot.starting is not None or (conn is not None and conn.state == "connecting")

    @staticmethod
    async def _ready(slot: _Slot) -> None:
        if slot.starting is not None:
            await asyncio.wait([slot.starting])  # never cancels the start itself
        if slot.connection is not None:
            await slot.connection.ready.wait()

    def _start(self, slot: _Slot) -> None:
        task = asyncio.ensure_future(self._open(slot))
        slot.starting = task
        slot.waited = False
        self._starting.add(task)
        task.add_done_callback(self._starting.discard)
        self._notify(slot.config.id)

    async def _open(self, slot: _Slot) -> None:
        """Read the server's secrets in a thread (the keyring may wait on an unlock prompt or
        a D-Bus timeout, ~25 s), then connect."""
        server_id = slot.config.id
        launch: Launch | None = None
        error = ""
        try:
            launch = await asyncio.to_thread(build_launch, slot.config, self.secrets, self.context)
        except McpConfigError as exc:
            error = str(exc)[:1].upper() + str(exc)[1:]
        except Exception as exc:  # a keyring backend's bug must not leave the server in limbo
            log.exception("MCP server %s: its launch could not be read", server_id)
            error = f"{type(exc).__name__}: {exc}"
        finally:
            slot.starting = None
        if self._closed or self._slots.get(server_id) is not slot:
            return  # turned off or changed while the keyring answered
        if launch is None:
            self._failed(slot, error)
            return
        conn = _connection_class()(
            launch,
            handshake_timeout=self.handshake_timeout,
            on_change=lambda: self._changed(server_id, conn),
            client=self.client,
            secrets=self.secrets,
            browser=self.browser,
            first_sign_in=False,
        )
        slot.connection = conn
        conn.start()  # still "connecting", as told when the start began

    def _changed(self, server_id: str, conn: Connection) -> None:
        slot = self._slots.get(server_id)
        if slot is None or slot.connection is not conn:
            return  # a connection that was dropped (settings changed) closing in the background
        if conn.state == "connected":
            self.health.started(server_id)
            self._publish(server_id, conn.launch, conn)
            if conn.bad_tools and not slot.bad_told:
                slot.bad_told = True  # once per connection, at the next message
                self._notices.append(bad_tools_notice(_label(slot.config), conn.bad_tools))
            slot.error, slot.failures, slot.notified, slot.signin = "", 0, False, False
            log.info(
                "MCP server %s connected in %.2f s with %d tools",
                server_id,
                conn.connect_seconds or 0.0,
                len(conn.tools),
            )
        elif conn.state in ("error", "signin"):
            slot.signin = conn.state == "signin"
            slot.connection = None
            self._keep_down(server_id)
            self._specs.pop(server_id, None)
            self._reroute()
            self._close_in_background(conn)
            if conn.connect_seconds is None and conn.state == "error":  # it never started
                self.health.failed(server_id, conn.message)
            self._failed(slot, conn.message)
            return
        elif conn.closed.is_set():
            slot.connection = None
            self._keep_down(server_id)
            self._specs.pop(server_id, None)
            self._reroute()
        self._notify(server_id)

    def _failed(self, slot: _Slot, message: str) -> None:
        slot.error = message
        if not slot.notified:  # once per failure streak, at the next message
            slot.notified = True
            self._notices.append(self._error_notice(slot))
        delay = self.backoff[min(slot.failures, len(self.backoff) - 1)] if self.backoff else 0.0
        slot.failures += 1
        slot.retry_at = time.monotonic() + delay
        self._notify(slot.config.id)

    def _publish(self, server_id: str, launch: Launch, conn: Connection) -> None:
        self._forget_down(server_id)
        self._specs[server_id] = [to_spec(server_id, t) for t in exposed(conn.tools, launch.expose)]
        self._reroute()

    def _keep_down(self, server_id: str) -> None:
        self._down.update({n: r for n, r in self._routes.items() if r[0] == server_id})

    def _forget_down(self, server_id: str) -> None:
        self._down = {n: r for n, r in self._down.items() if r[0] != server_id}

    def _reroute(self) -> None:
        self._routes = {}
        for server_id, specs in self._specs.items():
            conn = self._slots[server_id].connection
            if conn is None:
                continue
            by_spec_name = {to_spec(server_id, t).name: t.name for t in conn.tools}
            for spec in specs:
                # server ids hold no "_": the name always splits back to its server
                assert split_tool_name(spec.name) == (server_id, spec.name.split("_", 2)[2])
                self._routes[spec.name] = (server_id, by_spec_name[spec.name])

    def _drop(self, server_id: str, *, keep_slot: bool = False) -> None:
        slot = self._slots.get(server_id)
        if slot is None:
            return
        conn, slot.connection = slot.connection, None
        self._forget_down(server_id)  # turned off or changed: not restarting
        if slot.error:  # its failure, not yet told, is no longer news (a sign-in since...)
            stale = self._error_notice(slot)
            self._notices = [notice for notice in self._notices if notice != stale]
        if slot.starting is not None:
            slot.starting.cancel()
            slot.starting = None
        self._specs.pop(server_id, None)
        self._reroute()
        if not keep_slot:
            del self._slots[server_id]
        if conn is not None:
            self._close_in_background(conn)
        self._notify(server_id)

    def _close_in_background(self, conn: Connection) -> None:
        task = asyncio.ensure_future(conn.aclose())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def _notify(self, server_id: str) -> None:
        if not self._listeners:
            return
        status = self.status(server_id)
        for listener in list(self._listeners):
            try:
                listener(status)
            except Exception:  # a window bug must not break the connection logic
                log.exception("MCP status listener failed")

    def _error_notice(self, slot: _Slot) -> str:
        if slot.signin:
            return _("Serveur MCP « {name} » : {message}").format(
                name=_label(slot.config), message=slot.error
            )
        return _("Serveur MCP « {name} » indisponible : {message}").format(
            name=_label(slot.config), message=slot.error
        )


def _connection_class() -> type[Connection]:
    # Imported here, at the first start: importing `mcp` costs ~0.4 s and is useless when
    # every server is off.
    from loki_desktop.core.mcp.connection import Connection

    return Connection


def bad_tools_notice(label: str, names: list[str]) -> str:
    """One sentence naming the tools a server described badly (left out, the rest kept)."""
    if names == ["tools"]:
        return _(
            "Le serveur MCP « {name} » a envoyé une liste d'outils illisible : aucun de ses "
            "outils n'est proposé au modèle."
        ).format(name=label)
    shown = ", ".join(f"« {n} »" for n in names[:MAX_NAMED]) + (
        ", …" if len(names) > MAX_NAMED else ""
    )
    return ngettext(
        "Le serveur MCP « {name} » décrit mal {n} outil ({tools}) : il est laissé de côté, "
        "les autres restent utilisables.",
        "Le serveur MCP « {name} » décrit mal {n} outils ({tools}) : ils sont laissés de "
        "côté, les autres restent utilisables.",
        len(names),
    ).format(name=label, tools=shown, n=len(names))


def _label(config: ServerConfig) -> str:
    if config.kind == "catalogue" and config.id in CATALOGUE:
        return CATALOGUE[config.id].label
    return config.display_name


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    line = line.removeprefix("Error: ")
    return line if len(line) <= 120 else line[:119] + "…"
