"""How to reach one server: its command line and environment, or its URL and headers.

Built at start time from the typed config and the keyring, so secrets exist only in memory,
in the server's environment, arguments (`${NAME}` placeholders), URL or request headers, and
never in a file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from loki_desktop.core.i18n import _
from loki_desktop.core.mcp.catalogue import CATALOGUE, NETWORK_ERROR_MARKERS, LaunchContext
from loki_desktop.core.mcp.config import McpConfigError, OAuthConfig, ServerConfig, secret_key
from loki_desktop.core.mcp.placeholders import expand, referenced
from loki_desktop.core.mcp.secret_values import holds_secret, is_secret_name
from loki_desktop.core.ports import SecretStoreUnavailable

# Besides what the SDK passes on (HOME, PATH, USER, ...): what servers need to reach the
# network through a proxy, find certificates and temporary folders, and print UTF-8.
PASSED_ENV = (
    "LANG",
    "LC_ALL",
    "TMPDIR",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    "PLAYWRIGHT_BROWSERS_PATH",
    "XDG_RUNTIME_DIR",
)
# npm reads its settings from variables named so (any case): see `npm_config`
NPM_CONFIG_PREFIX = "npm_config_"


@dataclass(frozen=True)
class StdioLaunch:
    command: str
    args: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict, repr=False)  # may hold secrets


@dataclass(frozen=True)
class HttpLaunch:
    url: str
    headers: dict[str, str] = field(default_factory=dict, repr=False)  # may hold secrets
    oauth: OAuthConfig | None = None  # the person's OAuth settings (core.mcp.oauth)


@dataclass(frozen=True)
class Launch:
    """Everything a connection needs: where, which tools to expose, what counts as failure."""

    server_id: str
    label: str
    target: StdioLaunch | HttpLaunch
    expose: tuple[str, ...] | None = None
    error_markers: tuple[str, ...] = NETWORK_ERROR_MARKERS
    call_timeout_s: float | None = None  # the server's own limits (ServerConfig), else Loki's
    call_max_s: float | None = None
    # values to mask in any message shown or logged (stderr lines, errors)
    secret_values: tuple[str, ...] = field(default=(), repr=False)

    def redact(self, text: str) -> str:
        for value in self.secret_values:
            if len(value) >= 4:
                text = text.replace(value, "••••")
        return text


class SecretReader(Protocol):
    def get(self, name: str) -> str | None: ...


def build_launch(
    config: ServerConfig, secrets: SecretReader, context: LaunchContext | None = None
) -> Launch:
    """The launch of a server; raises McpConfigError (a French sentence) when it cannot start.

    Reads the keyring, which may block (an unlock prompt): on an event loop, call it in a
    thread.
    """
    values = dict(config.params)
    secret_values: list[str] = []
    by_name: dict[str, str] = {}
    for name in config.secrets:
        try:
            value = secrets.get(secret_key(config.id, name))
        except SecretStoreUnavailable as exc:
            raise McpConfigError(
                _("secret « {name} » illisible. {reason}").format(name=name, reason=exc)
            ) from None
        if value is None:
            raise McpConfigError(
                _(
                    "le secret « {name} » est absent du trousseau système ; enregistrez-le de "
                    "nouveau (loki-desktop mcp set {id} {name}=…)."
                ).format(name=name, id=config.id)
            )
        values[name] = value
        by_name[name] = value
        secret_values.append(value)
    expose = config.expose
    markers: tuple[str, ...] = NETWORK_ERROR_MARKERS
    if config.kind == "catalogue":
        entry = CATALOGUE[config.id]
        missing = [p.name for p in entry.params if p.required and not values.get(p.name)]
        if missing:
            raise McpConfigError(
                _("paramètre requis manquant : {names}.").format(names=", ".join(missing))
            )
        argv = entry.build_command(values, context or LaunchContext())
        arg_params = {p.name for p in entry.params if p.target != "env"}
        env = {name: value for name, value in values.items() if name not in arg_params}
        target: StdioLaunch | HttpLaunch = StdioLaunch(argv[0], tuple(argv[1:]), _env(env))
        expose = expose if expose is not None else entry.expose
        markers += entry.error_markers
    elif config.kind == "stdio":
        # secrets moved out of the command line come back in place (and stay in the
        # environment, as every secret of a local server)
        argv = [expand(part, by_name) for part in config.command]
        target = StdioLaunch(argv[0], tuple(argv[1:]), _env(values))
    else:
        # a secret of the URL is not sent a second time as a request header
        in_url = referenced(config.url)
        headers = {name: value for name, value in values.items() if name not in in_url}
        target = HttpLaunch(expand(config.url, by_name), headers, config.oauth)
    return Launch(
        server_id=config.id,
        label=config.display_name if config.kind != "catalogue" else CATALOGUE[config.id].label,
        target=target,
        expose=expose,
        error_markers=markers,
        secret_values=tuple(secret_values),
        call_timeout_s=config.call_timeout_s,
        call_max_s=config.call_max_s,
    )


def _env(values: dict[str, str]) -> dict[str, str]:
    passed = {name: os.environ[name] for name in PASSED_ENV if name in os.environ}
    return passed | npm_config() | values


def npm_config(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """npm's own settings from the environment (`npm_config_cache`, `npm_config_registry`,
    `npm_config_offline`, a proxy...), for servers started by npx: without them npx ignores
    the cache or registry the person set. Credentials stay out, by name (`_authToken`,
    `_password`, `keyfile`) or by value (a registry URL with a password)."""
    source = os.environ if environ is None else environ
    return {
        name: value
        for name, value in source.items()
        if name.lower().startswith(NPM_CONFIG_PREFIX)
        and not is_secret_name(name)
        and not holds_secret(value)
    }
