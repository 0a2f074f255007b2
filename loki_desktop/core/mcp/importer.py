"""Reading a Claude-Desktop-style `{"mcpServers": {...}}` file into server configs and secrets."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from loki_desktop.core.i18n import _
from loki_desktop.core.mcp.config import (
    McpConfigError,
    ServerConfig,
    check_param_name,
    check_url,
    is_secret_param,
    slugify,
)
from loki_desktop.core.mcp.placeholders import lift_command, lift_url


@dataclass(frozen=True)
class ImportedServer:
    """One server of the file: its config (secret names only) and the secret values to store.

    Secrets come from `env` / `headers` and from the command line or URL themselves
    (see core.mcp.placeholders): none stays in the config.
    """

    name: str  # as the file names it
    config: ServerConfig
    secrets: dict[str, str] = field(default_factory=dict, repr=False)


@dataclass
class ImportPlan:
    servers: list[ImportedServer] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # one French sentence each


def plan_import(data: Any, taken: Collection[str]) -> ImportPlan:
    """What importing `data` would add; ids already `taken` (or reserved) get a suffix."""
    if not isinstance(data, Mapping) or not isinstance(data.get("mcpServers"), Mapping):
        raise McpConfigError(_("le fichier n'a pas de clé « mcpServers » (un objet)."))
    plan = ImportPlan()
    used = set(taken)
    for name, entry in data["mcpServers"].items():
        try:
            server_id = _free_id(str(name), used)
            imported = _server(str(name), server_id, entry)
        except McpConfigError as exc:
            plan.skipped.append(_("« {name} » : {reason}").format(name=name, reason=exc))
            continue
        used.add(server_id)
        plan.servers.append(imported)
    return plan


def _server(name: str, server_id: str, entry: Any) -> ImportedServer:
    if not isinstance(entry, Mapping):
        raise McpConfigError(_("l'entrée n'est pas un objet JSON."))
    transport = str(entry.get("type") or entry.get("transport") or "").lower()
    if transport == "sse":
        raise McpConfigError(_("le transport SSE n'est pas pris en charge (stdio ou HTTP)."))
    enabled = _enabled(entry)
    if "command" in entry:
        command = entry["command"]
        args = entry.get("args", [])
        if not isinstance(command, str) or not command.strip():
            raise McpConfigError(_("« command » doit être un texte non vide."))
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise McpConfigError(_("« args » doit être une liste de textes."))
        params, secrets = _split(entry.get("env", {}), "env")
        argv, lifted = lift_command((command, *args), secrets)
        secrets |= lifted
        config = ServerConfig(
            server_id,
            "stdio",
            enabled=enabled,
            label=name,
            params=params,
            secrets=tuple(secrets),
            command=argv,
        )
        return ImportedServer(name, config, secrets)
    if "url" in entry:
        params, secrets = _split(entry.get("headers", {}), "headers")
        url, lifted = lift_url(check_url(entry["url"]), secrets)
        secrets |= lifted
        config = ServerConfig(
            server_id,
            "http",
            enabled=enabled,
            label=name,
            params=params,
            secrets=tuple(secrets),
            url=url,
        )
        return ImportedServer(name, config, secrets)
    raise McpConfigError(_("ni « command » ni « url »."))


def _enabled(entry: Mapping[str, Any]) -> bool:
    """Off unless the file says otherwise ("enabled": true, or "disabled": false)."""
    if isinstance(entry.get("enabled"), bool):
        return bool(entry["enabled"])
    if isinstance(entry.get("disabled"), bool):
        return not entry["disabled"]
    return False


def _split(values: Any, what: str) -> tuple[dict[str, str], dict[str, str]]:
    """(plain values, secret values) of an env or headers object."""
    if not isinstance(values, Mapping):
        raise McpConfigError(_("« {what} » doit être un objet.").format(what=what))
    plain: dict[str, str] = {}
    secret: dict[str, str] = {}
    for key, value in values.items():
        check_param_name(str(key))
        if not isinstance(value, str | int | float | bool):
            raise McpConfigError(_("la valeur de « {name} » n'est pas un texte.").format(name=key))
        text = (
            value
            if isinstance(value, str)
            else str(value).lower()
            if isinstance(value, bool)
            else str(value)
        )
        header = what == "headers"  # a remote server's: secret unless a plain header
        (secret if is_secret_param(str(key), text, header=header) else plain)[str(key)] = text
    return plain, secret


def _free_id(name: str, used: set[str]) -> str:
    base = slugify(name) or "serveur"
    candidate = base
    number = 2
    while candidate in used:
        suffix = f"-{number}"
        candidate = base[: 32 - len(suffix)] + suffix
        number += 1
    return candidate
