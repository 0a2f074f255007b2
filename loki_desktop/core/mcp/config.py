"""Typed MCP server settings: parse `Settings.mcp_servers`, validate ids, spot secret names.

One entry of `Settings.mcp_servers` (plain JSON, keyed by server id):

    {"enabled": true,
     "params": {"SEARXNG_URL": "http://127.0.0.1:8888"},   # non-secret values only
     "secrets": ["API_KEY"],                              # names whose values live in the keyring
     "label": "Mon serveur",                              # custom servers only
     "command": ["npx", "-y", "some-server"],             # custom stdio server
     "url": "https://example.com/mcp",                    # custom streamable-HTTP server
     "expose": ["tool_a", "tool_b"],                      # optional: the tools the model sees
     "sampling": "ask",                                   # optional: always | ask | never
     "oauth": {"client_id": "abc", "scope": "read write", # optional, HTTP servers: OAuth 2.1
               "grant": "authorization_code"}}            # (or "client_credentials", "enterprise")

For a catalogue server, `params` fill its declared parameters (extra names become environment
variables). For a custom stdio server they are environment variables, for an HTTP server
request headers. Secret values are never here: see `is_secret_name` and `secret_key`. A
command or URL may hold `${NAME}` placeholders of its secrets (core.mcp.placeholders).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from loki_desktop.core.i18n import _
from loki_desktop.core.mcp.host import DEFAULT_SAMPLING, SAMPLING_POLICIES, SamplingPolicy
from loki_desktop.core.mcp.secret_values import holds_secret, mask
from loki_desktop.core.mcp.secret_values import (  # re-exported: one rule for names and values
    is_secret_name as is_secret_name,
)

ServerKind = Literal["catalogue", "stdio", "http"]
OAuthGrant = Literal["authorization_code", "client_credentials", "enterprise"]
OAUTH_GRANTS: tuple[OAuthGrant, ...] = ("authorization_code", "client_credentials", "enterprise")

# No underscore: a model-facing tool name `mcp_<server>_<tool>` splits back at the first "_"
# after "mcp_", whatever the tool name holds.
SERVER_ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")
TOOL_PREFIX = "mcp_"

PARAM_NAME_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,127}")


class McpConfigError(ValueError):
    """A server setting cannot be used; the message is one French sentence for the user."""


# The request headers of a remote server whose values are settings, not credentials. Any
# other header is kept in the keyring: a custom `X-Custom-Session: …` is as good as a key,
# and no list of secret-sounding names can know every server's own.
PLAIN_HEADERS = frozenset(
    {
        "ACCEPT",
        "ACCEPT-ENCODING",
        "ACCEPT-LANGUAGE",
        "CACHE-CONTROL",
        "CONTENT-TYPE",
        "MCP-PROTOCOL-VERSION",
        "USER-AGENT",
    }
)
_REFERENCE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")


def is_secret_param(name: str, value: str, *, header: bool = False) -> bool:
    """Whether a parameter (environment variable or HTTP header) must live in the keyring:
    by its name (`API_KEY`, `GH_PAT`, `X-Auth`) or by its value (a URL with a password, a
    token shape such as `ghp_…`, a `Bearer …` credential); a remote server's `header` is one
    unless PLAIN_HEADERS names it. A `${NAME}` reference is not one."""
    if header and name.upper() not in PLAIN_HEADERS and not _REFERENCE.fullmatch(value):
        return True
    return is_secret_name(name) or holds_secret(value)


MAX_CALL_SECONDS = 24 * 3600.0


def parse_seconds(value: object, name: str) -> float | None:
    """A per-server limit in seconds (absent: None); raises McpConfigError (one sentence)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise McpConfigError(_("« {name} » doit être un nombre de secondes.").format(name=name))
    if not 0 < value <= MAX_CALL_SECONDS:
        raise McpConfigError(
            _("« {name} » doit être compris entre 0 et {max} secondes.").format(
                name=name, max=int(MAX_CALL_SECONDS)
            )
        )
    return float(value)


def _bundle_folder(value: object) -> str:
    """The folder name of an installed bundle: one plain name, never a path elsewhere."""
    if not isinstance(value, str) or not SERVER_ID_PATTERN.fullmatch(value):
        return ""
    return value


def _seconds(
    server_id: str, entry: Mapping[str, Any], name: str, notices: list[str]
) -> float | None:
    """A limit of the entry; a bad one is reset to Loki's default, with a notice."""
    try:
        return parse_seconds(entry.get(name), name)
    except McpConfigError as exc:
        notices.append(
            _("Serveur MCP « {id} » : {reason} La valeur par défaut s'applique.").format(
                id=server_id, reason=exc
            )
        )
        return None


def secret_key(server_id: str, name: str) -> str:
    """The keyring user name of one secret (service "loki-desktop")."""
    return f"mcp/{server_id}/{name}"


def check_server_id(server_id: str) -> str:
    """Return the id when it is valid, else raise McpConfigError with a suggestion."""
    if SERVER_ID_PATTERN.fullmatch(server_id):
        return server_id
    suggestion = slugify(server_id)
    hint = _(" Par exemple : « {id} ».").format(id=suggestion) if suggestion else ""
    raise McpConfigError(
        _(
            "Nom de serveur invalide : « {id} ». Utilisez de 1 à 32 caractères parmi "
            "a-z, 0-9 et le tiret, sans tiret au début.{hint}"
        ).format(id=server_id, hint=hint)
    )


def slugify(name: str) -> str:
    """A valid server id close to `name` (may be empty when nothing usable is left)."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug[:32].rstrip("-")


def check_param_name(name: str) -> str:
    if PARAM_NAME_PATTERN.fullmatch(name):
        return name
    raise McpConfigError(_("Nom de paramètre invalide : « {name} ».").format(name=name))


@dataclass(frozen=True)
class OAuthConfig:
    """What the person set for an HTTP server's OAuth sign-in (all optional).

    `client_id`: a client registered beforehand with the authorization server (else Loki
    registers itself dynamically); its secret, if any, is in the keyring (core.mcp.oauth).
    `scope`: space-separated scopes to ask for beyond what the server challenges with.
    `grant`: "client_credentials" for a machine account (client id + secret, no browser).
    `client_metadata_url`: an HTTPS client metadata document (CIMD) that an organisation
    hosts for Loki; used as the client id by the servers that accept one.
    `grant` "enterprise" (enterprise-managed authorization, SEP-990): the person signs in to
    their organisation's identity provider (`idp_issuer`, where Loki is the client
    `idp_client_id`), whose ID token is exchanged there for an identity assertion grant, which
    the server's authorization server (`issuer`, where Loki is `client_id` + secret) takes
    for an access token (core.mcp.enterprise).
    """

    client_id: str = ""
    scope: str = ""
    grant: OAuthGrant = "authorization_code"
    client_metadata_url: str = ""
    issuer: str = ""
    idp_issuer: str = ""
    idp_client_id: str = ""

    def to_json(self) -> dict[str, str]:
        data = {
            "client_id": self.client_id,
            "scope": self.scope,
            "grant": self.grant,
            "client_metadata_url": self.client_metadata_url,
            "issuer": self.issuer,
            "idp_issuer": self.idp_issuer,
            "idp_client_id": self.idp_client_id,
        }
        return {name: value for name, value in data.items() if value}

    @classmethod
    def parse(cls, value: Any) -> OAuthConfig:
        if not isinstance(value, Mapping):
            raise McpConfigError(_("« oauth » doit être un objet JSON."))
        fields = _string_map(value, "oauth")
        grant = fields.get("grant", "authorization_code")
        if grant not in OAUTH_GRANTS:
            raise McpConfigError(
                _("« oauth.grant » vaut authorization_code, client_credentials ou enterprise.")
            )
        metadata_url = fields.get("client_metadata_url", "")
        if metadata_url and not metadata_url.startswith("https://"):
            raise McpConfigError(_("« oauth.client_metadata_url » doit commencer par https://."))
        config = cls(
            fields.get("client_id", ""),
            fields.get("scope", ""),
            grant,
            metadata_url,
            fields.get("issuer", ""),
            fields.get("idp_issuer", ""),
            fields.get("idp_client_id", ""),
        )
        if grant == "enterprise":
            _check_enterprise(config)
        return config


def _check_enterprise(config: OAuthConfig) -> None:
    """An enterprise sign-in needs both parties named: no discovery may pick them (SEP-990)."""
    missing = [
        name
        for name in ("client_id", "issuer", "idp_issuer", "idp_client_id")
        if not getattr(config, name)
    ]
    if missing:
        raise McpConfigError(
            _("Connexion d'entreprise : il manque {names} dans « oauth ».").format(
                names=", ".join(missing)
            )
        )
    for name in ("issuer", "idp_issuer"):
        if not is_secure_origin(getattr(config, name)):
            raise McpConfigError(
                _("« oauth.{name} » doit commencer par https://.").format(name=name)
            )


def is_secure_origin(url: str) -> bool:
    """HTTPS, or plain HTTP on this machine's loopback (OAuth 2.1 allows nothing else)."""
    parts = urlsplit(url)
    if parts.scheme == "https":
        return bool(parts.hostname)
    return parts.scheme == "http" and parts.hostname in ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True)
class ServerConfig:
    """One server as the user set it up (catalogue or custom), free of secret values."""

    id: str
    kind: ServerKind
    enabled: bool = False
    label: str = ""
    params: Mapping[str, str] = field(default_factory=dict)
    secrets: tuple[str, ...] = ()
    command: tuple[str, ...] = ()
    url: str = ""
    expose: tuple[str, ...] | None = None
    # What the server cost the model's context when it was last tested: tools, tokens.
    # Kept so `mcp list` can show it without starting the server.
    measured: tuple[int, int] | None = None
    # whether its sampling requests reach the person's model (core.mcp.sampling)
    sampling: SamplingPolicy = DEFAULT_SAMPLING
    oauth: OAuthConfig | None = None  # HTTP servers: OAuth settings (sign-in works without)
    # A tool call's limit, in seconds, without a sign of life ("timeout"), and how long a call
    # that keeps reporting progress may run in all ("max_timeout"); None: Loki's defaults.
    call_timeout_s: float | None = None
    call_max_s: float | None = None
    bundle: str = ""  # installed from a .mcpb: its folder under the data folder's mcp-bundles/

    @property
    def display_name(self) -> str:
        return self.label or self.id

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"enabled": self.enabled}
        if self.params:
            data["params"] = dict(self.params)
        if self.secrets:
            data["secrets"] = sorted(self.secrets)
        if self.kind != "catalogue":
            data["label"] = self.label or self.id
        if self.kind == "stdio":
            data["command"] = list(self.command)
        if self.kind == "http":
            data["url"] = self.url
        if self.expose is not None:
            data["expose"] = list(self.expose)
        if self.oauth is not None and self.oauth.to_json():
            data["oauth"] = self.oauth.to_json()
        if self.measured is not None:
            data["measured"] = {"tools": self.measured[0], "tokens": self.measured[1]}
        if self.sampling != DEFAULT_SAMPLING:
            data["sampling"] = self.sampling
        if self.call_timeout_s is not None:
            data["timeout"] = self.call_timeout_s
        if self.call_max_s is not None:
            data["max_timeout"] = self.call_max_s
        if self.bundle:
            data["bundle"] = self.bundle
        return data

    def launch_key(self) -> tuple[Any, ...]:
        """What a running connection depends on (secret values aside)."""
        return (
            self.kind,
            tuple(sorted(self.params.items())),
            tuple(sorted(self.secrets)),
            self.command,
            self.url,
            self.expose,
            self.oauth,
            self.call_timeout_s,
            self.call_max_s,
        )


def parse_servers(
    raw: Mapping[str, Any], catalogue_ids: frozenset[str]
) -> tuple[dict[str, ServerConfig], list[str]]:
    """Every server known to the settings, plus notices for entries that had to be ignored.

    Catalogue servers missing from `raw` come back disabled with no parameters. Junk never
    raises: an unusable entry is dropped (or a bad field reset) with a notice.
    """
    servers: dict[str, ServerConfig] = {
        server_id: ServerConfig(server_id, "catalogue") for server_id in sorted(catalogue_ids)
    }
    notices: list[str] = []
    if not isinstance(raw, Mapping):
        return servers, [_("Réglages MCP illisibles : ils sont ignorés.")]
    for server_id, entry in raw.items():
        try:
            servers[server_id] = parse_entry(str(server_id), entry, catalogue_ids, notices)
        except McpConfigError as exc:
            notices.append(
                _("Serveur MCP « {id} » ignoré : {reason}").format(id=server_id, reason=exc)
            )
    return servers, notices


def parse_entry(
    server_id: str, entry: Any, catalogue_ids: frozenset[str], notices: list[str]
) -> ServerConfig:
    """One entry; raises McpConfigError when it is unusable, adds notices for dropped parts."""
    check_server_id(server_id)
    if not isinstance(entry, Mapping):
        raise McpConfigError(_("l'entrée n'est pas un objet JSON."))
    enabled = entry.get("enabled", False)
    if not isinstance(enabled, bool):
        raise McpConfigError(_("« enabled » doit valoir true ou false."))
    params = _string_map(entry.get("params", {}), "params")
    for name in list(params):
        check_param_name(name)
        if is_secret_name(name):
            # a secret written in the file by hand is not used (its value is never shown)
            del params[name]
            notices.append(
                _(
                    "Serveur MCP « {id} » : le paramètre secret « {name} » était écrit en clair "
                    "dans les réglages ; il est ignoré. Enregistrez-le avec « loki-desktop mcp "
                    "set {id} {name}=… » (trousseau système)."
                ).format(id=server_id, name=name)
            )
    secrets = entry.get("secrets", [])
    if not isinstance(secrets, list) or not all(isinstance(s, str) for s in secrets):
        raise McpConfigError(_("« secrets » doit être une liste de noms."))
    expose = entry.get("expose")
    if expose is not None and (
        not isinstance(expose, list) or not all(isinstance(s, str) for s in expose)
    ):
        raise McpConfigError(_("« expose » doit être une liste de noms d'outils."))
    common: dict[str, Any] = {
        "enabled": enabled,
        "params": params,
        "secrets": tuple(dict.fromkeys(secrets)),
        "expose": tuple(expose) if expose is not None else None,
        "measured": _measured(entry.get("measured")),
        "sampling": _sampling(server_id, entry.get("sampling", DEFAULT_SAMPLING), notices),
        "call_timeout_s": _seconds(server_id, entry, "timeout", notices),
        "call_max_s": _seconds(server_id, entry, "max_timeout", notices),
        "bundle": _bundle_folder(entry.get("bundle", "")),
    }
    label = entry.get("label", "")
    if not isinstance(label, str):
        raise McpConfigError(_("« label » doit être un texte."))
    if server_id in catalogue_ids:
        return ServerConfig(server_id, "catalogue", **common)
    command, url = entry.get("command"), entry.get("url")
    if command is not None and url is not None:
        raise McpConfigError(_("donnez une commande ou une URL, pas les deux."))
    if command is not None:
        if (
            not isinstance(command, list)
            or not command
            or not all(isinstance(part, str) for part in command)
            or not command[0].strip()
        ):
            raise McpConfigError(_("« command » doit être une liste non vide de textes."))
        return ServerConfig(server_id, "stdio", label=label, command=tuple(command), **common)
    if url is not None:
        oauth = entry.get("oauth")
        return ServerConfig(
            server_id,
            "http",
            label=label,
            url=check_url(url),
            oauth=OAuthConfig.parse(oauth) if oauth is not None else None,
            **common,
        )
    raise McpConfigError(_("ni commande ni URL."))


def check_url(url: Any) -> str:
    if not isinstance(url, str) or not re.match(r"https?://[^\s/]+", url.strip()):
        raise McpConfigError(
            _("URL invalide : « {url} » (attendu : http://… ou https://…).").format(
                url=mask(str(url))
            )
        )
    return url.strip()


def _sampling(server_id: str, value: Any, notices: list[str]) -> SamplingPolicy:
    for policy in SAMPLING_POLICIES:
        if value == policy:
            return policy
    notices.append(
        _("Serveur MCP « {id} » : « sampling » vaut always, ask ou never ; ask est gardé.").format(
            id=server_id
        )
    )
    return DEFAULT_SAMPLING


def _measured(value: Any) -> tuple[int, int] | None:
    """The recorded cost, or None when absent or not two counts (a cache: never an error)."""
    if not isinstance(value, Mapping):
        return None
    tools, tokens = value.get("tools"), value.get("tokens")
    if type(tools) is int and type(tokens) is int and tools >= 0 and tokens >= 0:
        return tools, tokens
    return None


def _string_map(value: Any, what: str) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise McpConfigError(_("« {what} » doit associer des noms à des textes.").format(what=what))
    return dict(value)
