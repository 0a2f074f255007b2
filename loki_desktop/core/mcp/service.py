"""The MCP service: what the settings dialog and `loki-desktop mcp` call. One door for both.

    service = McpService(services.settings, services.secrets)

Reading
    service.catalogue() -> list[CatalogueEntry]      label, French description, params (.secret)
    service.servers() -> list[ServerView]            every server: config + live status
    service.server(id) -> ServerView
    service.problem(id) -> str | None                why it could not start now (missing param...)
    service.manager.statuses() / .status(id)         ServerStatus: state inactive|connecting|
                                                     connected|error, message, tools,
                                                     tool_count, schema_chars, schema_tokens
    service.manager.subscribe(callback) -> unsubscribe
                                                     callback(ServerStatus) on every change,
                                                     called on the event loop (repaint a dot)
Editing (each one saves the settings file and updates the live manager; errors raise
McpConfigError or SecretStoreUnavailable, both carrying one French sentence; nothing is
written when they raise)
    service.enable(id) / service.disable(id)
    service.set_sampling(id, "always" | "ask" | "never")
    service.set_params(id, {"NAME": "value", "OTHER": None})   None or "" removes
    service.add_stdio(name, ["npx", "-y", "pkg"], env=None, label=None, enabled=False)
    service.add_http(name, url, headers=None, label=None, enabled=False)
    service.remove(id)                               custom servers only (and their secrets)
    service.import_config(data) / service.import_file(path) -> ImportReport
    service.set_oauth(id, OAuthConfig(client_id=..., scope=..., grant=...), client_secret=...)
                                                     HTTP servers: a pre-registered client or
                                                     a machine account (secret: keyring)
OAuth sign-in (HTTP servers; tokens in the keyring, core.mcp.oauth)
    await service.sign_in(id, browser) -> TestResult browser(url) shows the page to the person
    await service.sign_out(id)                       forgets the tokens
    service.signed_in(id) -> bool                    tokens stored (reads the keyring)
    await service.edit(lambda: service.set_params(...))
                                                     any edit above off the event loop (the
                                                     window: a keyring may wait on an unlock
                                                     prompt); the manager is updated on the
                                                     loop once the edit is done
Testing
    await service.test(id) -> TestResult             ok, message, tools, exposed, schema_chars,
                                                     schema_tokens; a success records the
                                                     cost in the server's settings (measured)
Agent
    service.manager                                  the ToolSource: TurnOptions.extra_sources
    await service.manager.settle()                   waits for background closes (turned-off
                                                     servers, tests): the loop must run meanwhile
    await service.aclose()                           at exit: stops every server, waits for them

Secret parameters (names with KEY, TOKEN, SECRET, PASSWORD, AUTH, PAT... or values holding a
URL password, a token shape, a credential: see config.is_secret_param) go to the SecretStore
under "mcp/<id>/<NAME>"; the settings file only lists their names. Secrets typed in a command
line or URL (`--api-key sk-…`, `-p pw`, `TOKEN=…`, `?api_key=…`, `postgres://u:pw@h`) go there
too, the command or URL keeping a `${NAME}` placeholder that the launch fills
(core.mcp.placeholders). Every view, problem and error is masked (core.mcp.secret_values).
Reading never touches the keyring (it may block on an unlock prompt): a secret counts as set
when the settings list its name, since the service lists a name only once its value is stored.
Starting and testing a server read the keyring in a thread.
The service re-reads the settings file before each edit and saves it whole: a caller that
keeps its own Settings copy must reload it (or copy `mcp_servers`) before saving it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from loki_desktop.core.bounded_read import FileTooBig, NotRegularFile, read_bounded
from loki_desktop.core.i18n import _, ngettext
from loki_desktop.core.mcp.bundle import read_bundle, server_line, unpack
from loki_desktop.core.mcp.catalogue import CATALOGUE, CATALOGUE_IDS, CatalogueEntry, Param
from loki_desktop.core.mcp.config import (
    McpConfigError,
    OAuthConfig,
    ServerConfig,
    check_param_name,
    check_server_id,
    check_url,
    is_secret_param,
    parse_servers,
    secret_key,
    slugify,
)
from loki_desktop.core.mcp.host import SAMPLING_POLICIES, SamplingPolicy
from loki_desktop.core.mcp.importer import plan_import
from loki_desktop.core.mcp.launch import build_launch
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.core.mcp.oauth_redirect import SIGN_IN_TIMEOUT_S, Browser
from loki_desktop.core.mcp.oauth_vault import OAuthVault
from loki_desktop.core.mcp.placeholders import lift_command, lift_url, mask_command, mask_url
from loki_desktop.core.mcp.secret_values import mask
from loki_desktop.core.mcp.status import ServerStatus, TestResult
from loki_desktop.core.ports import SecretStore, SecretStoreUnavailable, SettingsStore
from loki_desktop.core.settings import Settings


@dataclass(frozen=True)
class ServerView:
    """A server as the settings dialog and `mcp list` show it. Secret values are never here:
    its config is masked (see `masked_config`)."""

    config: ServerConfig
    status: ServerStatus
    label: str
    description: str = ""
    params: tuple[Param, ...] = ()  # the catalogue's declared parameters (custom: none)
    # secret names stored in the keyring, as the settings list them (the keyring is not read)
    secrets_set: tuple[str, ...] = ()
    # parameters whose value, written in the settings by hand or by an older version, holds a
    # secret: shown masked in `config.params` (a form must not save the mask back)
    masked: frozenset[str] = frozenset()

    @property
    def id(self) -> str:
        return self.config.id

    @property
    def custom(self) -> bool:
        return self.config.kind != "catalogue"


@dataclass
class ImportReport:
    added: list[ServerConfig] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    secrets_stored: int = 0


T = TypeVar("T")
# A Claude Desktop configuration is a few KB: a bigger "file to import" is something else.
IMPORT_MAX_BYTES = 4_000_000
Reload = tuple[dict[str, ServerConfig], frozenset[str]]


class McpService:
    def __init__(
        self,
        settings: SettingsStore,
        secrets: SecretStore,
        manager: McpManager | None = None,
        *,
        data_home: Path | None = None,
    ) -> None:
        self.settings = settings
        self.secrets = secrets
        self.data_home = data_home
        # in the thread of an `edit`: the manager updates it owes, made on the loop after
        self._edit = threading.local()
        self.notices: list[str] = []  # from reading the settings (ignored entries)
        servers = self._servers(settings.load())
        self.manager = manager or McpManager(
            servers, secrets, notices=list(self.notices), data_home=data_home
        )

    # --- reading ----------------------------------------------------------------------------

    @staticmethod
    def catalogue() -> list[CatalogueEntry]:
        return list(CATALOGUE.values())

    def servers(self) -> list[ServerView]:
        return [self._view(config) for config in self._servers(self.settings.load()).values()]

    def server(self, server_id: str) -> ServerView:
        return self._view(self._config(self.settings.load(), server_id))

    def problem(self, server_id: str) -> str | None:
        """Why this server could not start right now, or None when it can.

        Secrets are not read (see the module docstring): one listed but gone from the keyring
        is told when the server starts or is tested.
        """
        config = self._config(self.settings.load(), server_id)
        try:
            build_launch(config, _ListedSecrets())
        except McpConfigError as exc:
            return _sentence(mask(str(exc)))
        return None

    # --- editing -------------------------------------------------------------------------------

    def enable(self, server_id: str) -> None:
        self._change(server_id, lambda config: replace(config, enabled=True))

    def disable(self, server_id: str) -> None:
        self._change(server_id, lambda config: replace(config, enabled=False))

    def set_sampling(self, server_id: str, policy: SamplingPolicy) -> None:
        """Whether the server's sampling requests reach the person's model (no restart)."""
        if policy not in SAMPLING_POLICIES:
            raise McpConfigError(_("Réglage inconnu : « {policy} ».").format(policy=policy))
        self._change(server_id, lambda config: replace(config, sampling=policy))

    def keeps_secret(self, server_id: str, name: str, value: str) -> bool:
        """Whether `set_params` keeps this value in the keyring (what the CLI tells)."""
        config = self._config(self.settings.load(), server_id)
        return is_secret_param(name, value, header=config.kind == "http")

    def set_call_limits(self, server_id: str, timeout_s: float | None, max_s: float | None) -> None:
        """A tool call's limit without a sign of life, and in all (None: Loki's default)."""
        self._change(
            server_id,
            lambda config: replace(config, call_timeout_s=timeout_s, call_max_s=max_s),
        )

    def set_expose(self, server_id: str, names: Sequence[str] | None) -> None:
        """The tools of the server that reach the model (None: all of them)."""
        chosen = None if names is None else tuple(dict.fromkeys(n.strip() for n in names if n))
        self._change(server_id, lambda config: replace(config, expose=chosen))

    def set_params(self, server_id: str, values: Mapping[str, str | None]) -> None:
        """Set (or with None/"" remove) parameters; secret ones go to the keyring only.

        A parameter is secret by its name or by its value (config.is_secret_param): the same
        name moves between the settings and the keyring as its value changes.
        """
        config = self._config(self.settings.load(), server_id)
        for name in values:
            check_param_name(name)
        params = dict(config.params)
        secret_names = list(config.secrets)
        stored: list[str] = []
        try:
            header = config.kind == "http"
            for name, value in values.items():
                if value and is_secret_param(name, value, header=header):
                    self.secrets.set(secret_key(server_id, name), value)
                    stored.append(name)
                    params.pop(name, None)
                    if name not in secret_names:
                        secret_names.append(name)
                    continue
                if name in secret_names:
                    self.secrets.delete(secret_key(server_id, name))
                    secret_names.remove(name)
                if value:
                    params[name] = value
                else:
                    params.pop(name, None)
        except Exception:
            for name in stored:  # all or nothing: no half-applied command
                if name not in config.secrets:
                    self._forget_secret(server_id, name)
            raise
        # the keyring may have waited on an unlock prompt: the entry is changed as it is now
        self._change(
            server_id,
            lambda now: replace(now, params=params, secrets=tuple(secret_names)),
            restart=True,
        )

    def add_stdio(
        self,
        name: str,
        command: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        label: str | None = None,
        enabled: bool = False,
    ) -> ServerConfig:
        if not command or not command[0].strip():
            raise McpConfigError(_("La commande est vide."))
        config = ServerConfig(
            self._new_id(name),
            "stdio",
            enabled=enabled,
            label=label or name,
            command=tuple(command),
        )
        return self._add(config, env or {})

    def install_bundle(
        self,
        path: Path,
        values: Mapping[str, Any],
        *,
        name: str | None = None,
        enabled: bool = False,
    ) -> ServerConfig:
        """Install a .mcpb bundle: checked, unpacked under the data folder, added as a stdio
        server; the values of its sensitive options go to the keyring only."""
        bundle = read_bundle(path)
        server_id = self._new_id(name or slugify(bundle.name) or "bundle")
        folder = self._bundles() / server_id
        line = server_line(bundle, folder, values)  # wrong values: said before unpacking
        if folder.exists():
            shutil.rmtree(folder)  # a leftover of an install that did not finish
        unpack(path, folder)
        config = ServerConfig(
            server_id,
            "stdio",
            enabled=enabled,
            label=bundle.display_name,
            command=line.command,
            bundle=server_id,
        )
        try:
            return self._add(config, line.env, secrets=line.secrets)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise

    def _bundles(self) -> Path:
        if self.data_home is None:
            raise McpConfigError(_("Aucun dossier de données pour y installer le paquet."))
        return self.data_home / "mcp-bundles"

    def add_http(
        self,
        name: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        label: str | None = None,
        enabled: bool = False,
    ) -> ServerConfig:
        config = ServerConfig(
            self._new_id(name), "http", enabled=enabled, label=label or name, url=check_url(url)
        )
        return self._add(config, headers or {})

    def set_oauth(
        self,
        server_id: str,
        oauth: OAuthConfig | None,
        *,
        client_secret: str | None = None,
        idp_secret: str | None = None,
    ) -> None:
        """An HTTP server's OAuth settings (core.mcp.config.OAuthConfig); the client secret
        (or private key) and, for an enterprise sign-in, Loki's secret at the identity
        provider, when given, go to the keyring. None clears them all. Changing them signs
        out."""
        config = self._config(self.settings.load(), server_id)
        if config.kind != "http":
            raise McpConfigError(
                _("OAuth ne concerne que les serveurs HTTP distants (« {id} »).").format(
                    id=server_id
                )
            )
        vault = OAuthVault(self.secrets, server_id)
        if oauth is None or client_secret is not None:
            vault.set_client_secret(client_secret if oauth is not None else None)
        if oauth is None or idp_secret is not None:
            vault.set_idp_secret(idp_secret if oauth is not None else None)
        vault.forget(keep_client=False)
        self._change(server_id, lambda now: replace(now, oauth=oauth), restart=True)

    def signed_in(self, server_id: str) -> bool:
        """Whether OAuth tokens of this server are in the keyring (reads it: may block)."""
        try:
            return OAuthVault(self.secrets, server_id).signed_in()
        except SecretStoreUnavailable:
            return False

    async def sign_in(
        self, server_id: str, browser: Browser, timeout_s: float = SIGN_IN_TIMEOUT_S
    ) -> TestResult:
        """Sign in to an HTTP server: its authorization page opens through `browser`, the
        answer comes back to a loopback listener, the tokens go to the keyring; then the live
        connection restarts with them. `ok` False carries the reason."""
        config = self._config(self.settings.load(), server_id)
        result = await self.manager.sign_in(config, browser, timeout_s)
        if result.ok:
            self.manager.reload(self._servers(self.settings.load()), frozenset({server_id}))
        return result

    async def sign_out(self, server_id: str) -> None:
        """Forget the server's tokens (the registration stays) and restart its connection."""
        config = self._config(self.settings.load(), server_id)
        await asyncio.to_thread(OAuthVault(self.secrets, config.id).forget)
        self.manager.reload(self._servers(self.settings.load()), frozenset({server_id}))

    def remove(self, server_id: str) -> None:
        config = self._config(self.settings.load(), server_id)
        if config.kind == "catalogue":
            raise McpConfigError(
                _("« {id} » fait partie du catalogue : désactivez-le plutôt.").format(id=server_id)
            )
        for name in config.secrets:
            self._forget_secret(server_id, name)
        with contextlib.suppress(Exception):
            vault = OAuthVault(self.secrets, server_id)
            vault.set_client_secret(None)
            vault.set_idp_secret(None)
            vault.forget(keep_client=False)

        def drop(now: Settings) -> None:
            now.mcp_servers.pop(server_id, None)

        self._reload(self._servers(self.settings.update(drop)))
        if config.bundle and self.data_home is not None:
            shutil.rmtree(self._bundles() / config.bundle, ignore_errors=True)

    def import_config(self, data: Any) -> ImportReport:
        """Add the servers of a Claude-Desktop-style object; secrets go to the keyring.

        A server whose secrets the keyring refuses (none usable) is left out and listed in
        `skipped`; the others, those holding no secret among them, are added.
        """
        taken = set(self._servers(self.settings.load())) | set(CATALOGUE_IDS)
        plan = plan_import(data, taken)
        report = ImportReport(skipped=list(plan.skipped))
        for imported in plan.servers:
            try:
                self._store_all(imported.config.id, imported.secrets)
            except SecretStoreUnavailable as exc:
                report.skipped.append(
                    ngettext(
                        "« {name} » : {n} secret à ranger, mais {reason}",
                        "« {name} » : {n} secrets à ranger, mais {reason}",
                        len(imported.secrets),
                    ).format(
                        name=imported.name, n=len(imported.secrets), reason=_lower_first(str(exc))
                    )
                )
                continue
            report.added.append(imported.config)
            report.secrets_stored += len(imported.secrets)
        if report.added:

            def add(now: Settings) -> None:
                for config in report.added:
                    now.mcp_servers[config.id] = config.to_json()

            self._reload(self._servers(self.settings.update(add)))
        return report

    def import_file(self, path: Path) -> ImportReport:
        try:
            data = json.loads(read_bounded(path, IMPORT_MAX_BYTES).decode("utf-8"))
        except FileTooBig:
            raise McpConfigError(
                _("{path} est trop gros pour une configuration (plus de {n} Mo)").format(
                    path=path, n=IMPORT_MAX_BYTES // 1_000_000
                )
            ) from None
        except NotRegularFile:
            raise McpConfigError(
                _(
                    "{path} n'est pas un fichier ordinaire (un tube, une socket ou un périphérique)"
                ).format(path=path)
            ) from None
        except RecursionError:
            raise McpConfigError(
                _("{path} n'est pas du JSON valide : imbrication trop profonde").format(path=path)
            ) from None
        except OSError as exc:
            raise McpConfigError(
                _("Lecture impossible de {path} : {error}").format(path=path, error=exc.strerror)
            ) from None
        except ValueError as exc:
            raise McpConfigError(
                _("{path} n'est pas du JSON valide : {error}").format(path=path, error=exc)
            ) from None
        return self.import_config(data)

    async def edit(self, action: Callable[[], T]) -> T:
        """Run one of the edits above in a worker thread: its keyring writes and deletes may
        wait on an unlock prompt or a D-Bus timeout (~25 s), which must not freeze a window.
        The manager lives on the loop: it takes the new settings there once the edit is done
        (even when the caller stopped waiting)."""
        owed: list[Reload] = []

        def run() -> T:
            self._edit.owed = owed
            try:
                return action()
            finally:
                self._edit.owed = None

        def settle(done: asyncio.Future[T]) -> None:
            if not done.cancelled():
                done.exception()  # retrieved: the caller may be gone
            for servers, restart in owed:
                self.manager.reload(servers, restart)

        done = asyncio.ensure_future(asyncio.to_thread(run))
        done.add_done_callback(settle)
        return await asyncio.shield(done)

    # --- testing and closing ------------------------------------------------------------------

    async def test(self, server_id: str, limit_s: float | None = None) -> TestResult:
        """Connect once apart from the live sessions; a success records the server's cost."""
        result = await self.manager.test(self._config(self.settings.load(), server_id), limit_s)
        if result.ok:
            measured = (len(result.exposed), result.schema_tokens)
            if self._config(self.settings.load(), server_id).measured != measured:
                # the entry as it is now: the test took a while
                self._change(server_id, lambda now: replace(now, measured=measured), reload=False)
        return result

    async def aclose(self) -> None:
        await self.manager.aclose()

    # --- inside ---------------------------------------------------------------------------------

    def _servers(self, settings: Settings) -> dict[str, ServerConfig]:
        servers, notices = parse_servers(settings.mcp_servers, CATALOGUE_IDS)
        self.notices = notices
        return servers

    def _config(self, settings: Settings, server_id: str) -> ServerConfig:
        config = self._servers(settings).get(server_id)
        if config is None:
            known = ", ".join(self._servers(settings)) or _("aucun")
            raise McpConfigError(
                _("Serveur MCP inconnu : « {id} ». Serveurs connus : {known}.").format(
                    id=server_id, known=known
                )
            )
        return config

    def _view(self, config: ServerConfig) -> ServerView:
        entry = CATALOGUE.get(config.id) if config.kind == "catalogue" else None
        declared = [p.name for p in entry.params if p.secret] if entry else []
        names = list(dict.fromkeys([*declared, *config.secrets]))
        config, masked = masked_config(config)
        return ServerView(
            config=config,
            masked=masked,
            status=self.manager.status(config.id),
            label=entry.label if entry else config.display_name,
            description=_(entry.description) if entry else _describe_custom(config),
            params=tuple(_translated(p) for p in entry.params) if entry else (),
            secrets_set=tuple(n for n in names if n in config.secrets),
        )

    def _change(
        self,
        server_id: str,
        change: Callable[[ServerConfig], ServerConfig],
        *,
        restart: bool = False,
        reload: bool = True,
    ) -> None:
        """Change one server's entry as the file holds it now (one read-modify-write of the
        settings store: a writer elsewhere loses nothing), then update the live manager."""

        def write(now: Settings) -> None:
            now.mcp_servers[server_id] = change(self._config(now, server_id)).to_json()

        settings = self.settings.update(write)
        if reload:
            restarted = frozenset({server_id}) if restart else frozenset()
            self._reload(self._servers(settings), restarted)

    def _reload(
        self, servers: dict[str, ServerConfig], restart: frozenset[str] = frozenset()
    ) -> None:
        """Update the live manager now, or on the loop after an `edit` running in a thread."""
        owed: list[Reload] | None = getattr(self._edit, "owed", None)
        if owed is not None:
            owed.append((servers, restart))
        else:
            self.manager.reload(servers, restart)

    def _new_id(self, name: str) -> str:
        server_id = check_server_id(name)
        settings = self.settings.load()
        if server_id in CATALOGUE_IDS or server_id in self._servers(settings):
            raise McpConfigError(_("Un serveur « {id} » existe déjà.").format(id=server_id))
        return server_id

    def _add(
        self,
        config: ServerConfig,
        values: Mapping[str, str],
        *,
        secrets: Mapping[str, str] | None = None,
    ) -> ServerConfig:
        """Add a server; `values` (env or headers) go to the keyring when secret by name or
        value, `secrets` always (a bundle's sensitive options)."""
        for name in [*values, *(secrets or {})]:
            check_param_name(name)
        header = config.kind == "http"  # a remote server's params are its request headers
        secret = {k: v for k, v in values.items() if is_secret_param(k, v, header=header)}
        secret |= dict(secrets or {})
        plain = {k: v for k, v in values.items() if k not in secret}
        # secrets typed in the command line or URL move to the keyring too (placeholders)
        if config.kind == "stdio":
            command, lifted = lift_command(config.command, secret)
            config = replace(config, command=command)
        else:
            url, lifted = lift_url(config.url, secret)
            config = replace(config, url=url)
        secret |= lifted
        self._store_all(config.id, secret)
        config = replace(config, params=plain, secrets=tuple(secret))
        entry = config.to_json()

        def write(now: Settings) -> None:
            now.mcp_servers[config.id] = entry

        self._reload(self._servers(self.settings.update(write)))
        return config

    def _store_all(self, server_id: str, values: Mapping[str, str]) -> None:
        """Store every secret of one server, or none of them (and raise)."""
        stored: list[str] = []
        try:
            for name, value in values.items():
                self.secrets.set(secret_key(server_id, name), value)
                stored.append(name)
        except Exception:
            for name in stored:
                self._forget_secret(server_id, name)
            raise

    def _forget_secret(self, server_id: str, name: str) -> None:
        # no usable keyring to delete from: nothing was stored there either
        with contextlib.suppress(Exception):
            self.secrets.delete(secret_key(server_id, name))


class _ListedSecrets:
    """Stands for the keyring when only the settings matter: every listed secret is "set"."""

    def get(self, name: str) -> str | None:
        return "(set)"


def masked_config(config: ServerConfig) -> tuple[ServerConfig, frozenset[str]]:
    """`config` with every secret value in its parameters, command and URL shown as ••••,
    and the names of the parameters that were masked."""
    params = {name: mask(value) for name, value in config.params.items()}
    changed = frozenset(name for name, value in params.items() if value != config.params[name])
    masked = replace(
        config, params=params, command=mask_command(config.command), url=mask_url(config.url)
    )
    return masked, changed


def _describe_custom(config: ServerConfig) -> str:
    if config.kind == "http":
        return _("Serveur HTTP : {url}").format(url=mask_url(config.url))
    return _("Commande : {command}").format(command=" ".join(mask_command(config.command)))


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _translated(param: Param) -> Param:
    """The catalogue's texts are marked, not translated (module level): translate them here."""
    return replace(param, label=_(param.label), description=_(param.description))
