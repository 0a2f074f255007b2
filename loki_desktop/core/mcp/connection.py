"""One MCP server's session, opened and closed by one owner task. With core.mcp.callbacks,
core.mcp.oauth and core.mcp.enterprise, the only modules importing `mcp`.

The SDK's contexts (transport, session) are entered and exited in the same long-lived task:
closing them from another task breaks anyio's cancel scopes. Timeouts sit on requests only
(the handshake, each call), never on entering a context. Everything that can go wrong ends
as `state == "error"` with one French sentence in `message`; nothing escapes the task. An HTTP
server that wants the person to sign in (OAuth) ends as `state == "signin"` instead.

Besides tools, the session lists the server's prompts and resources (when it offers them),
lists each kind again when the server says it changed (list_changed), and answers the
server's own requests (elicitation, sampling, roots: core.mcp.callbacks). While Loki answers
one of them, the clocks of the calls in flight stop: the server is waiting on Loki then.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import math
import os
import re
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, TextIO, cast

import anyio
import httpx2
from mcp.client.session import ClientRequestContext, ClientSession
from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError
from mcp.types import (
    CONNECTION_CLOSED,
    INTERNAL_ERROR,
    REQUEST_TIMEOUT,
    UNSUPPORTED_PROTOCOL_VERSION,
    CallToolResult,
    ErrorData,
    Implementation,
    InputRequiredResult,
    RootsListChangedNotification,
)

from loki_desktop import __version__
from loki_desktop.core.i18n import _
from loki_desktop.core.loopback import direct_mounts
from loki_desktop.core.mcp import enterprise, oauth
from loki_desktop.core.mcp.callbacks import ListKind, SessionCallbacks
from loki_desktop.core.mcp.client_side import ClientSide
from loki_desktop.core.mcp.convert import (
    CallResult,
    McpTool,
    looks_failed,
    result_images,
    result_text,
)
from loki_desktop.core.mcp.launch import HttpLaunch, Launch, StdioLaunch
from loki_desktop.core.mcp.listing import (
    LIST_TIMEOUT_S,
    list_prompts,
    list_resource_templates,
    list_resources,
    list_tools,
    prompt_messages,
    resource_content,
)
from loki_desktop.core.mcp.npx import npx_package, slow_start_reason
from loki_desktop.core.mcp.oauth_redirect import Browser
from loki_desktop.core.mcp.offers import (
    McpPrompt,
    McpResource,
    McpResourceTemplate,
    RenderedPrompt,
    ResourceContent,
)
from loki_desktop.core.mcp.secret_values import is_secret_name, mask
from loki_desktop.core.mcp.status import ServerState
from loki_desktop.core.mcp.tool_check import clean_tool_listing
from loki_desktop.core.ports import SecretStore
from loki_desktop.core.procs.spawn import supervised

log = logging.getLogger(__name__)
# The SDK logs parse errors and teardown noise with tracebacks; with no logging set up they
# would land on the terminal of `loki-desktop ask`. A handler here keeps them out of
# logging's last resort while still reaching whatever the app configures on the root logger.
logging.getLogger("mcp").addHandler(logging.NullHandler())

JUNK_GRACE_S = 2.0  # after a non-MCP line on stdout, how long the handshake may still succeed
MAX_INPUT_ROUNDS = 10  # a 2026 server asking for input again and again (the SDK's own cap)
STDERR_LINES = 40
STDERR_SHOWN = 3
CLIENT_INFO = Implementation(name="loki-desktop", version=__version__)
# RFC 6750's error_description in a WWW-Authenticate header
_AUTH_DESCRIPTION = re.compile(r'error_description="([^"]{1,200})"')


class _JunkOutput(Exception):
    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line


class _HandshakeTimeout(Exception):
    def __init__(self, reason: str = "") -> None:
        super().__init__(reason)
        self.reason = reason  # what npm says kept npx from starting the server, if known


class _ServerGone(Exception):
    pass


class Connection:
    """A live session with one server. `start()` it, watch `state`, `stop()` it.

    `on_change` is called (on the event loop) whenever `state` or `tools` change.
    """

    def __init__(
        self,
        launch: Launch,
        *,
        handshake_timeout: float,
        on_change: Callable[[], None] = lambda: None,
        client: ClientSide | None = None,
        secrets: SecretStore | None = None,
        browser: Browser | None = None,
        elicitation_callback: Any = None,
        first_sign_in: bool = True,
    ) -> None:
        """`secrets`: where an HTTP server's OAuth sign-in is kept (None: no OAuth at all).
        `browser`: how to show the person an authorization page; None never starts a sign-in,
        the connection ends in the "signin" state instead. `first_sign_in` False (a connection
        started in the background): the browser is used only once signed in (a step-up to more
        scopes, a refresh token gone), never to start a first sign-in by surprise."""
        self.launch = launch
        self.client = client or ClientSide()
        self.secrets = secrets
        self.browser = browser
        self.first_sign_in = first_sign_in
        # an SDK elicitation callback that replaces the ClientSide's (the conformance adapter's;
        # the app answers through `client.host`, core.mcp.host)
        self.elicitation_callback = elicitation_callback
        self.handshake_timeout = handshake_timeout
        self.state: ServerState = "connecting"
        self.message = ""
        self.tools: list[McpTool] = []
        # the tools its listing described badly, left out (core.mcp.tool_check), by name
        self.bad_tools: list[str] = []
        self.prompts: list[McpPrompt] = []
        self.resources: list[McpResource] = []
        self.resource_templates: list[McpResourceTemplate] = []
        self.ready = asyncio.Event()  # set when the state leaves "connecting"
        self.closed = asyncio.Event()  # set when the owner task has closed everything
        self.started_at = time.monotonic()
        self.connect_seconds: float | None = None
        self._on_change = on_change
        self._session: ClientSession | None = None
        self._stop = asyncio.Event()
        self._wake = asyncio.Event()  # stop asked, or the server's output ended
        self._lost = False
        self._junk: str | None = None
        self._scope: anyio.CancelScope | None = None
        self._stderr = _StderrTail()
        self._task: asyncio.Task[None] | None = None
        # an HTTP server's last 401/403 (status, what it said): the SDK reports it as -32603
        self._refused: tuple[int, str] | None = None
        self._clocks = _CallClocks()
        self._signin_needed = False  # the OAuth flow wanted a person and had none to ask
        self._oauth = False  # the requests go through Loki's OAuth (core.mcp.oauth)

    # --- lifecycle ------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self._own(), name=f"mcp:{self.launch.server_id}")

    def stop(self) -> None:
        """Ask the owner task to close the session; `closed` is set once it has."""
        self._stop.set()
        self._wake.set()
        if self._scope is not None:
            self._scope.cancel()

    async def aclose(self) -> None:
        self.stop()
        if self._task is not None:
            await asyncio.shield(self.closed.wait())

    # --- the owner task -----------------------------------------------------------------

    async def _own(self) -> None:
        try:
            await self._run()
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError) or _only_cancelled(exc):
                self._fail(_("Connexion interrompue."))
                raise
            await self._stderr.wait_drained()
            if self._wants_signin(exc):
                self._ask_signin()
                return
            self._fail(self._describe(exc))
            log.info("MCP server %s failed: %s", self.launch.server_id, self.message)
        finally:
            self._session = None
            self._stderr.release()
            self.ready.set()
            self.closed.set()
            self._on_change()

    async def _run(self) -> None:
        target = self.launch.target
        if isinstance(target, StdioLaunch):
            # under the supervisor: the server and what it starts end with it, or with Loki
            command, args = supervised(target.command, list(target.args), dict(target.env))
            params = StdioServerParameters(command=command, args=args, env=dict(target.env))
            errlog = self._stderr.open(self.launch.server_id)
            try:
                async with stdio_client(params, errlog=errlog) as (read, write):
                    self._stderr.release()  # the child has its copy of the pipe now
                    await self._serve(read, write)
            finally:
                self._stderr.release()
        else:
            assert isinstance(target, HttpLaunch)
            async with contextlib.AsyncExitStack() as stack:
                auth = await self._auth(target, stack)
                self._oauth = auth is not None
                http = await stack.enter_async_context(
                    _http_client(target.url, target.headers, auth)
                )
                read, write = await stack.enter_async_context(
                    streamable_http_client(target.url, http_client=http)
                )
                # sees the HTTP status the SDK turns into a bare -32603 (a 401 or 403 among
                # them); set before the first request, which `_serve` sends
                http.event_hooks = {"response": [self._on_http_response]}
                await self._serve(read, write)

    async def _auth(self, target: HttpLaunch, stack: contextlib.AsyncExitStack) -> Any:
        """The OAuth of an HTTP server (core.mcp.oauth), or None: no keyring given, or a key
        header already set by the person (their credential, not Loki's sign-in)."""
        if self.secrets is None or any(is_secret_name(name) for name in target.headers):
            return None
        sign_in = None
        if self.browser is not None and (
            self.first_sign_in or await oauth.signed_in(self.launch.server_id, self.secrets)
        ):
            redirect = await oauth.loopback_for(self.launch.server_id, self.secrets)
            stack.push_async_callback(redirect.close)
            sign_in = oauth.BrowserSignIn(self.browser, redirect, oauth.SIGN_IN_TIMEOUT_S)
        build = enterprise.build_auth if _enterprise(target) else oauth.build_auth
        return await build(
            self.launch.server_id,
            target.url,
            target.oauth,
            self.secrets,
            sign_in,
            on_required=self._signin_wanted,
        )

    def _signin_wanted(self) -> None:
        self._signin_needed = True

    async def _serve(self, read: Any, write: Any) -> None:
        watched = _WatchedStream(read, self._on_junk, self._on_eof, self._on_bad_tools)
        callbacks = SessionCallbacks(
            self.launch.server_id, self.launch.label, self.client, self._clocks.paused, self._relist
        )
        answers = callbacks.as_kwargs()
        if self.elicitation_callback is not None:
            answers["elicitation_callback"] = self.elicitation_callback
        async with ClientSession(watched, write, client_info=CLIENT_INFO, **answers) as session:
            tools = await self._handshake(session)
            if self._stop.is_set():
                return
            self._session = session
            self.tools = tools
            self.state = "connected"
            self.connect_seconds = time.monotonic() - self.started_at
            self.ready.set()
            self._on_change()
            await self._wake.wait()
            self._session = None
            if self._lost and not self._stop.is_set():
                raise _ServerGone()

    async def _handshake(self, session: ClientSession) -> list[McpTool]:
        tools: list[McpTool] = []
        with anyio.CancelScope() as scope:
            scope.deadline = anyio.current_time() + self.handshake_timeout
            self._scope = scope
            if self._stop.is_set():
                scope.cancel()
            try:
                await session.initialize()
            except MCPError as exc:
                if exc.code != UNSUPPORTED_PROTOCOL_VERSION:
                    raise
                # A server of the 2026 protocol only refuses the handshake: `discover()` (public)
                # probes `server/discover`, retries at a version both sides know, and adopts it.
                # The SDK's own "auto" policy (mcp.client._probe) is private, and tries the
                # handshake we already know fails.
                await session.discover()
            tools = await list_tools(session)
            await self._list_offers(session)
        self._scope = None
        if scope.cancelled_caught and not self._stop.is_set():
            failure: Exception = (
                _JunkOutput(self._junk)
                if self._junk is not None
                else _HandshakeTimeout(await self._why_slow())
            )
            # told now, not after the close: stopping a stuck server takes seconds
            self._fail(self._describe(failure))
            raise failure
        return tools

    async def _list_offers(self, session: ClientSession) -> None:
        """The prompts and resources of a server that offers them (the handshake's deadline)."""
        capabilities = session.server_capabilities
        server_id, label = self.launch.server_id, self.launch.label
        # a listing that fails leaves that list empty: the tools are what the server is for
        try:
            if capabilities is not None and capabilities.prompts is not None:
                self.prompts = await list_prompts(session, server_id, label)
            if capabilities is not None and capabilities.resources is not None:
                self.resources = await list_resources(session, server_id, label)
        except Exception as exc:
            log.info("MCP server %s: prompts or resources not listed: %r", server_id, exc)
        if capabilities is None or capabilities.resources is None:
            return
        try:  # apart: a server may list resources and not know templates
            self.resource_templates = await list_resource_templates(session, server_id, label)
        except Exception as exc:
            log.info("MCP server %s: resource templates not listed: %r", server_id, exc)

    async def _relist(self, kind: ListKind) -> None:
        """The server said its tools (prompts, resources) changed: list them again, live."""
        session = self._session
        if session is None or self.state != "connected":
            return
        server_id, label = self.launch.server_id, self.launch.label
        try:
            with anyio.fail_after(LIST_TIMEOUT_S):
                if kind == "tools":
                    self.tools = await list_tools(session)
                elif kind == "prompts":
                    self.prompts = await list_prompts(session, server_id, label)
                else:
                    self.resources = await list_resources(session, server_id, label)
        except Exception as exc:  # a failed re-list keeps the old list; the session goes on
            log.info("MCP server %s: listing %s again failed: %r", server_id, kind, exc)
            return
        log.info("MCP server %s: %s listed again", server_id, kind)
        self._on_change()

    # --- prompts, resources, roots --------------------------------------------------------

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> RenderedPrompt:
        """Render one prompt; raises McpOfferError (French) when it cannot be."""
        session = self._ready_session()
        prompt = next((p for p in self.prompts if p.name == name), None)
        if prompt is None:
            raise McpOfferError(
                _("Le serveur ne propose plus l'invite « {name} ».").format(name=name)
            )
        try:
            with anyio.fail_after(LIST_TIMEOUT_S):
                result = await session.get_prompt(name, arguments)
        except (MCPError, TimeoutError, RuntimeError) as exc:
            raise McpOfferError(self._offer_failure(exc)) from None
        return prompt_messages(prompt, result)

    async def read_resource(self, resource: McpResource) -> ResourceContent:
        """Read one resource; raises McpOfferError (French) when it cannot be."""
        session = self._ready_session()
        try:
            with anyio.fail_after(LIST_TIMEOUT_S):
                result = await session.read_resource(resource.uri)
        except (MCPError, TimeoutError, RuntimeError) as exc:
            raise McpOfferError(self._offer_failure(exc)) from None
        return resource_content(resource, result)

    async def roots_changed(self) -> None:
        """Tell the server its roots changed (it lists them again if it cares)."""
        session = self._session
        if session is None or self.state != "connected":
            return
        try:
            with anyio.fail_after(LIST_TIMEOUT_S):
                await session.send_notification(RootsListChangedNotification())
        except Exception as exc:  # a server gone meanwhile: its next session lists them anew
            log.info("MCP server %s: roots/list_changed not sent: %r", self.launch.server_id, exc)

    def _ready_session(self) -> ClientSession:
        session = self._session
        if session is None or self.state != "connected":
            raise McpOfferError(
                _("Le serveur MCP « {name} » n'est pas connecté.").format(name=self.launch.label)
            )
        return session

    def _offer_failure(self, exc: BaseException) -> str:
        if isinstance(exc, TimeoutError):
            return _("Le serveur « {name} » n'a pas répondu en {n} s.").format(
                name=self.launch.label, n=f"{LIST_TIMEOUT_S:g}"
            )
        said = exc.message if isinstance(exc, MCPError) else str(exc)
        return _("Le serveur « {name} » a refusé : {error}").format(
            name=self.launch.label, error=mask(self.launch.redact(said))
        )

    async def _why_slow(self) -> str:
        """For a server started by npx: what npm says is missing (empty for any other)."""
        target = self.launch.target
        if not isinstance(target, StdioLaunch):
            return ""
        package = npx_package(target.command, target.args)
        if package is None:
            return ""
        env = {**get_default_environment(), **target.env}
        probe = asyncio.ensure_future(slow_start_reason(package, env, self.handshake_timeout))
        stopped = asyncio.ensure_future(self._stop.wait())
        try:
            # a stop (turned off, Loki closing) does not wait for npm's answers
            await asyncio.wait({probe, stopped}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopped.cancel()
            if not probe.done():
                probe.cancel()  # its npm processes are ended as it unwinds
                with contextlib.suppress(asyncio.CancelledError):
                    await probe
        return probe.result() if not probe.cancelled() else ""

    # --- calls ------------------------------------------------------------------------

    async def call(
        self, tool: str, args: dict[str, Any], limit_s: float, max_s: float | None = None
    ) -> CallResult:
        """Call one tool. Failures come back as CallResult(ok=False), never as exceptions.

        The call gets `limit_s` without a sign of life: each progress report the server sends
        (Loki sends a progress token) gives it `limit_s` more, up to `max_s` in all.
        """
        session = self._session
        if session is None or self.state != "connected":
            return CallResult(
                False, f"Error: the MCP server '{self.launch.server_id}' is not ready."
            )
        self._refused = None
        try:
            # the clock stops while the server waits on Loki (a form, the model): see _CallClocks
            ceiling = anyio.current_time() + max(max_s or limit_s, limit_s)
            with self._clocks.call(limit_s) as clock:

                async def alive(progress: float, total: float | None, message: str | None) -> None:
                    self._clocks.extend(clock, limit_s, ceiling)

                result = await self._call_answering(session, tool, args, alive)
            if clock.cancelled_caught:
                waited = limit_s if anyio.current_time() < ceiling else max(max_s or 0, limit_s)
                return self._call_error(tool, MCPError(REQUEST_TIMEOUT, "timed out"), waited)
        except MCPError as exc:
            if self._signin_needed:
                return self._signin_call(tool)
            if self._refused is not None:
                return self._refused_call(tool)
            return self._call_error(tool, exc, limit_s)
        except Exception as exc:  # a transport failure (HTTP), or a result the SDK refused
            if self._signin_needed:
                return self._signin_call(tool)
            log.info(
                "MCP call %s/%s failed: %s",
                self.launch.server_id,
                tool,
                mask(self.launch.redact(repr(exc))),
            )
            return CallResult(False, f"Error: {tool} failed: {mask(self.launch.redact(str(exc)))}")
        text = result_text(result.content, result.structured_content)
        ok = not result.is_error and not looks_failed(text, self.launch.error_markers)
        if not ok and not text.strip():
            text = f"{tool} failed without saying why."
        # not cut here: the Toolbox caps every tool's result for the model
        return CallResult(ok, self.launch.redact(text), result_images(result.content))

    @staticmethod
    async def _call_answering(
        session: ClientSession,
        tool: str,
        args: dict[str, Any],
        on_progress: ProgressFnT | None = None,
    ) -> CallToolResult:
        """Call a tool; on the 2026-07-28 protocol, answer the input it requires and retry.

        Such a server sends its questions (forms, sampling, roots) in an InputRequiredResult
        instead of requests of its own: they go through the same callbacks, one at a time (a
        person answers them), and the call is retried with the answers and its opaque state.
        """
        result = await session.call_tool(
            tool, args, progress_callback=on_progress, allow_input_required=True
        )
        for _round in range(MAX_INPUT_ROUNDS):
            if not isinstance(result, InputRequiredResult):
                return result
            responses: dict[str, Any] = {}
            for key, request in (result.input_requests or {}).items():
                context = ClientRequestContext(session=session, request_id=key)
                answer = await session.dispatch_input_request(context, request)
                if isinstance(answer, ErrorData):
                    raise MCPError.from_error_data(answer)
                responses[key] = answer
            if not responses:
                await anyio.sleep(0.05)  # only state: the server is still working on it
            result = await session.call_tool(
                tool,
                args,
                input_responses=responses or None,
                request_state=result.request_state,
                progress_callback=on_progress,
                allow_input_required=True,
            )
        if isinstance(result, InputRequiredResult):
            raise MCPError(
                INTERNAL_ERROR, f"still asking for input after {MAX_INPUT_ROUNDS} rounds"
            )
        return result

    def _call_error(self, tool: str, exc: MCPError, timeout: float) -> CallResult:
        server = self.launch.server_id
        if exc.code == REQUEST_TIMEOUT:
            # The server may be wedged: it is restarted at a later message, with backoff.
            self._fail(_("L'appel de {tool} a dépassé {n} s.").format(tool=tool, n=f"{timeout:g}"))
            self.stop()
            return CallResult(
                False,
                f"Error: {tool} did not answer within {timeout:g} s. "
                f"The MCP server '{server}' is being restarted; do not call it again now.",
            )
        if exc.code == CONNECTION_CLOSED:
            self._lost = True
            self._wake.set()
            return CallResult(
                False,
                f"Error: the MCP server '{server}' stopped during the call to {tool}. "
                "Its tools are unavailable for now.",
            )
        return CallResult(False, f"Error: {mask(self.launch.redact(exc.message))}")

    def _signin_call(self, tool: str) -> CallResult:
        """The server wants a new sign-in (more scopes, an expired grant) and nobody may be
        asked now: the card says "connexion requise", the model is told to stop."""
        self._ask_signin()
        self.stop()
        return CallResult(
            False,
            f"Error: the MCP server '{self.launch.server_id}' requires the user to sign in "
            f"again before {tool} can run. Only the user can do it (the server's Sign in "
            "button in Loki's settings): do not call it again.",
        )

    def _refused_call(self, tool: str) -> CallResult:
        status, _said = self._refused or (0, "")
        return CallResult(
            False,
            f"Error: the MCP server '{self.launch.server_id}' refused the credentials for "
            f"{tool} (HTTP {status}). Only the user can fix its key in Loki's settings: "
            "do not call it again.",
        )

    # --- events from the read stream ----------------------------------------------------

    async def _on_http_response(self, response: httpx2.Response) -> None:
        cap_body(response)
        if response.status_code in (401, 403):
            said = _AUTH_DESCRIPTION.search(response.headers.get("www-authenticate", ""))
            self._refused = (response.status_code, said[1] if said else "")
        elif self._refused is not None and _same_endpoint(response.request.url, self.launch):
            # the server answered a request past the refusal (signed in meanwhile): a failure
            # from now on is its own, not the refusal's ("no key is sent" would mislead)
            self._refused = None

    def _on_junk(self, exc: Exception) -> None:
        if self.state != "connecting":
            return
        if self._junk is None:
            self._junk = _junk_line(exc)
        if self._scope is not None:
            self._scope.deadline = min(self._scope.deadline, anyio.current_time() + JUNK_GRACE_S)

    def _on_bad_tools(self, names: list[str]) -> None:
        self.bad_tools = names

    def _on_eof(self) -> None:
        self._lost = True
        self._wake.set()

    # --- failures -------------------------------------------------------------------------

    def _wants_signin(self, exc: BaseException) -> bool:
        """A failure that the person's sign-in fixes: the flow asked for them, or a 401 from
        a server to which Loki sends no credential of the person's own."""
        if self._signin_needed:
            return True
        target = self.launch.target
        if not isinstance(target, HttpLaunch) or self.secrets is None or self._refused is None:
            return False
        own_key = any(is_secret_name(name) for name in target.headers)
        # without Loki's OAuth in the requests (nothing stored, nobody asked yet): a sign-in
        return self._refused[0] == 401 and not own_key and not self._oauth

    def _ask_signin(self) -> None:
        if self.state in ("error", "signin"):
            return
        self._signin_needed = True
        self.state = "signin"
        self.message = _(
            "connexion requise : cliquez sur « Se connecter » (Réglages → MCP) ou lancez "
            "loki-desktop mcp login {id}."
        ).format(id=self.launch.server_id)
        self.message = self.message[:1].upper() + self.message[1:]
        self.ready.set()
        self._on_change()

    def _fail(self, message: str) -> None:
        if self.state == "error":
            return  # the first cause is the one worth telling
        self.state = "error"
        self.message = message
        self.ready.set()
        self._on_change()

    def _describe(self, exc: BaseException) -> str:
        leaf = _leaf(exc)
        target = self.launch.target
        command = target.command if isinstance(target, StdioLaunch) else ""
        if isinstance(target, HttpLaunch) and self._oauth and _is_oauth_error(leaf):
            return self._finish(
                _("la connexion OAuth a échoué : {error}").format(error=str(leaf) or repr(leaf))
            )
        if isinstance(target, HttpLaunch) and self._refused is not None:
            return self._finish(self._refusal(target, *self._refused))
        match leaf:
            case FileNotFoundError():
                text = _("commande introuvable : « {command} ».").format(command=command)
                if command in ("npx", "node", "npm"):
                    text += " " + _("Installez Node.js, qui fournit npx.")
            case PermissionError():
                text = _("commande non exécutable : « {command} ».").format(command=command)
            case _JunkOutput(line=line):
                text = _(
                    "le serveur écrit autre chose que du MCP sur sa sortie standard : « {line} »."
                ).format(line=line)
            case _HandshakeTimeout(reason=reason) if reason:
                text = reason
            case _HandshakeTimeout():
                text = _("le serveur ne répond pas (rien en {n} s).").format(
                    n=f"{self.handshake_timeout:g}"
                )
            case _ServerGone():
                text = _("le serveur s'est arrêté.")
            case MCPError(code=code) if code == CONNECTION_CLOSED:
                text = _("le serveur s'est arrêté au démarrage.")
            case MCPError(code=code, message=message):
                text = _("le serveur a refusé la connexion : {message} (code {code}).").format(
                    message=message, code=code
                )
            case OSError(strerror=strerror) if strerror:
                text = f"{strerror}."
            case _ if isinstance(target, HttpLaunch) and type(leaf).__module__.startswith("httpx"):
                text = _("impossible de joindre {url} : {error}.").format(
                    url=target.url, error=str(leaf) or type(leaf).__name__
                )
            case _:
                text = f"{type(leaf).__name__}: {leaf}"
        tail = self._stderr.tail(STDERR_SHOWN)
        if tail:
            text += " " + _("Sa sortie d'erreur : « {lines} ».").format(lines=" | ".join(tail))
        return self._finish(text)

    def _finish(self, text: str) -> str:
        """One sentence for people: capitalised, known secrets and secret shapes masked."""
        return mask(self.launch.redact(text[:1].upper() + text[1:]))

    def _refusal(self, target: HttpLaunch, status: int, said: str) -> str:
        """A 401/403: which server, and what to check in its settings."""
        name, server_id = self.launch.label, self.launch.server_id
        quoted = f", « {said} »" if said else ""
        if status == 403:
            text = _(
                "accès refusé (HTTP 403{said}) : la clé est reconnue mais n'a pas les droits "
                "demandés."
            ).format(said=quoted)
        else:
            text = _("authentification refusée (HTTP 401{said}).").format(said=quoted)
        sent = [header for header in target.headers if is_secret_name(header)]
        if sent:
            text += " " + _(
                "Vérifiez la clé d'authentification de « {name} » ({headers}) dans ses "
                "réglages : loki-desktop mcp set {id} {header}=…"
            ).format(name=name, headers=", ".join(sent), id=server_id, header=sent[0])
        else:
            text += " " + _(
                "« {name} » n'envoie aucune clé d'authentification : ajoutez l'en-tête dans "
                'ses réglages, par exemple loki-desktop mcp set {id} Authorization="Bearer …"'
            ).format(name=name, id=server_id)
        return text


class McpOfferError(Exception):
    """A prompt or resource that could not be had; the message is one French sentence."""


class _CallClocks:
    """The deadlines of the calls in flight, stopped while the server waits on Loki.

    A tool that asks the person a question (elicitation) or the person's model for text
    (sampling) waits on Loki: that time is not the server's, and a person filling a form
    for a minute must not get the server restarted. Public anyio cancel scopes, each call's
    remaining budget kept while paused (the SDK's own pausable clock is private).
    """

    def __init__(self) -> None:
        self._budgets: dict[anyio.CancelScope, float] = {}
        self._pauses = 0

    @contextlib.contextmanager
    def call(self, limit_s: float) -> Iterator[anyio.CancelScope]:
        scope = anyio.CancelScope()
        if self._pauses:
            self._budgets[scope] = limit_s
        else:
            scope.deadline = anyio.current_time() + limit_s
            self._budgets[scope] = math.inf
        try:
            with scope:
                yield scope
        finally:
            self._budgets.pop(scope, None)

    def extend(self, scope: anyio.CancelScope, limit_s: float, ceiling: float) -> None:
        """A sign of life of the call under `scope`: `limit_s` more, never past `ceiling`."""
        if scope not in self._budgets:
            return  # the call is over
        now = anyio.current_time()
        if self._pauses:
            self._budgets[scope] = max(0.0, min(limit_s, ceiling - now))
        else:
            scope.deadline = min(now + limit_s, ceiling)

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        if not self._pauses:
            now = anyio.current_time()
            for scope in self._budgets:
                self._budgets[scope] = scope.deadline - now
                scope.deadline = math.inf
        self._pauses += 1
        try:
            yield
        finally:
            self._pauses -= 1
            if not self._pauses:
                now = anyio.current_time()
                for scope, budget in self._budgets.items():
                    scope.deadline = now + max(budget, 0.0)


# A JSON answer of an MCP server, read whole by the SDK: far past any real tool result (the
# SDK caps each SSE event at 1 MB itself). Past it the call fails as a parse error, in words.
MAX_BODY_BYTES = 16 * 1024 * 1024


class BodyTooBig(httpx2.StreamError):
    """An MCP server's answer passed MAX_BODY_BYTES."""


class _CappedBody(httpx2.AsyncByteStream):
    def __init__(self, inner: Any, limit: int) -> None:
        self._inner = inner
        self._limit = limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self._inner:
            seen += len(chunk)
            if seen > self._limit:
                raise BodyTooBig(
                    f"the server's answer is over {self._limit // (1024 * 1024)} MB; "
                    "it was not read"
                )
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


def cap_body(response: httpx2.Response, limit: int = MAX_BODY_BYTES) -> None:
    """Bound what reading `response` whole may take (a stream of events is left as is)."""
    if "text/event-stream" not in response.headers.get("content-type", ""):
        response.stream = _CappedBody(response.stream, limit)


def _http_client(url: str, headers: dict[str, str], auth: Any = None) -> httpx2.AsyncClient:
    """An HTTP client for streamable HTTP: 30 s to connect, no other timeout.

    Built here, not with `create_mcp_http_client` (mcp.shared._httpx_utils, a private module
    a 2.x release may move): `streamable_http_client` takes the client as a public argument,
    which is how the request headers get in. Only connecting has a timeout, unlike the SDK's
    30 s / 300 s to read: httpcore arms a loop timer for every socket read and write, which
    qasync keeps (as a Qt timer) until its deadline even once cancelled, ~5 per call held
    up to 5 minutes. A call is bounded anyway by its request timeout (`read_timeout_seconds`,
    one timer per call), after which the server is restarted; the handshake by its deadline;
    and the server-to-client stream is meant to stay open while nothing happens. A server on
    loopback is reached directly even with HTTP(S)_PROXY set (core.loopback).
    """
    return httpx2.AsyncClient(
        headers=headers,
        auth=auth,
        timeout=httpx2.Timeout(None, connect=30.0),
        mounts=direct_mounts(url),
    )


class _WatchedStream:
    """The transport's read stream, watched: junk lines and the end of the output are reported."""

    def __init__(
        self,
        inner: Any,
        on_junk: Callable[[Exception], None],
        on_eof: Callable[[], None],
        on_bad_tools: Callable[[list[str]], None] = lambda _names: None,
    ) -> None:
        self._inner = inner
        self._on_junk = on_junk
        self._on_eof = on_eof
        self._on_bad_tools = on_bad_tools

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)  # `last_context` and friends

    def _seen(self, item: Any) -> Any:
        if isinstance(item, Exception):
            self._on_junk(item)
            return item
        message = getattr(item, "message", None)
        result = getattr(message, "result", None)
        if isinstance(result, dict) and "tools" in result:  # a tools/list answer
            cleaned, bad = clean_tool_listing(result)
            self._on_bad_tools(bad)
            if bad:
                message.result = cleaned  # type: ignore[union-attr]  # a JSONRPCResponse here
        return item

    async def receive(self) -> Any:
        try:
            return self._seen(await self._inner.receive())
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._on_eof()
            raise

    def __aiter__(self) -> _WatchedStream:
        return self

    async def __anext__(self) -> Any:
        try:
            return self._seen(await self._inner.__anext__())
        except (StopAsyncIteration, anyio.ClosedResourceError):
            self._on_eof()
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _WatchedStream:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> bool | None:
        result: bool | None = await self._inner.__aexit__(*exc_info)
        return result


class _StderrTail:
    """The server's stderr through a pipe, read by a thread that keeps the last lines.

    A pipe (not a file) so a chatty server costs bounded memory and no disk; a thread so it
    works on every platform's event loop.
    """

    def __init__(self) -> None:
        self.lines: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self._write: TextIO | None = None
        self._thread: threading.Thread | None = None

    def open(self, name: str) -> TextIO:
        read_fd, write_fd = os.pipe()
        self._write = cast(TextIO, os.fdopen(write_fd, "w", encoding="utf-8"))
        self._thread = threading.Thread(
            target=self._pump, args=(read_fd,), name=f"mcp-stderr:{name}", daemon=True
        )
        self._thread.start()
        return self._write

    def release(self) -> None:
        """Close our copy of the write end (the reader ends when the server's copies close)."""
        if self._write is not None:
            with contextlib.suppress(OSError):
                self._write.close()
            self._write = None

    async def wait_drained(self, grace_s: float = 0.5) -> None:
        """Give the reader a moment to catch the last lines of a server that just died."""
        self.release()
        deadline = time.monotonic() + grace_s
        while self._thread is not None and self._thread.is_alive():
            if time.monotonic() > deadline:
                return
            await asyncio.sleep(0.01)

    def _pump(self, fd: int) -> None:
        with os.fdopen(fd, "rb") as pipe:
            for raw in pipe:
                self.lines.append(raw.decode("utf-8", "replace").rstrip()[:300])

    def tail(self, count: int) -> list[str]:
        return [line for line in list(self.lines) if line.strip()][-count:]


def _leaf(exc: BaseException) -> BaseException:
    """The exception worth telling inside the SDK's nested exception groups."""
    while isinstance(exc, BaseExceptionGroup):
        meaningful = [e for e in exc.exceptions if not _only_cancelled(e)]
        exc = (meaningful or list(exc.exceptions))[0]
    return exc


def _same_endpoint(url: httpx2.URL, launch: Launch) -> bool:
    """Whether a response came from the MCP endpoint itself (not a sign-in's metadata,
    registration or token request, which go through the same client)."""
    target = launch.target
    if not isinstance(target, HttpLaunch):
        return False
    endpoint = httpx2.URL(target.url)
    return (url.scheme, url.host, url.port, url.path) == (
        endpoint.scheme,
        endpoint.host,
        endpoint.port,
        endpoint.path,
    )


def _enterprise(target: HttpLaunch) -> bool:
    return target.oauth is not None and target.oauth.grant == "enterprise"


def _is_oauth_error(exc: BaseException) -> bool:
    return isinstance(exc, oauth.OAUTH_ERRORS)


def _only_cancelled(exc: BaseException) -> bool:
    if isinstance(exc, BaseExceptionGroup):
        return all(_only_cancelled(e) for e in exc.exceptions)
    return isinstance(exc, asyncio.CancelledError)


def _junk_line(exc: Exception) -> str:
    """The offending stdout line, from the SDK's parse error."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        with contextlib.suppress(Exception):
            value = errors()[0].get("input")
            if isinstance(value, str | bytes):
                text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
                return text.strip()[:120]
    return str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__
