"""The model servers the person set up (Ollama or OpenAI-compatible), typed from the settings.

The settings file keeps `model_servers` as a list of plain entries `{"kind": "ollama" |
"openai", "name", "url", "context_lengths": {model: tokens}}`; an entry's API key is never in
the file: it lives in the keyring under `key_name(name)` (SecretStore). An empty list is the
setup before several servers existed: one Ollama server at the `host` setting (or
$OLLAMA_HOST, or the local default), so an old settings file keeps working unchanged.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from loki_desktop.core.settings import Settings, resolve_host

ServerKind = Literal["ollama", "openai"]
KINDS: tuple[ServerKind, ...] = ("ollama", "openai")
# How Loki's instructions reach a model of an OpenAI-compatible server, whose template cannot
# be seen: as a system message, or folded into the first user message (a chat format that
# drops the system message, such as llama.cpp's `gemma`). `models --probe` checks it.
SystemPlacement = Literal["system", "folded"]
PLACEMENTS: tuple[SystemPlacement, ...] = ("system", "folded")
DEFAULT_OLLAMA_NAME = "Ollama"
DEFAULT_OPENAI_URL = "http://127.0.0.1:8000/v1"  # vLLM's default port


@dataclass(frozen=True)
class ModelServer:
    kind: ServerKind
    name: str
    url: str
    context_lengths: Mapping[str, int] = field(default_factory=dict)
    has_key: bool = False  # an API key is stored in the keyring for it
    system: SystemPlacement = "system"  # OpenAI-compatible servers only

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"kind": self.kind, "name": self.name, "url": self.url}
        if self.context_lengths:
            entry["context_lengths"] = dict(self.context_lengths)
        if self.has_key:
            entry["has_key"] = True
        if self.system != "system":
            entry["system"] = self.system
        return entry


def key_name(server_name: str) -> str:
    """The keyring user name of a server's API key (service "loki-desktop")."""
    return f"model-server/{server_name}"


def check_url(url: str) -> str | None:
    """Why `url` cannot be a server address (French), or None."""
    from loki_desktop.core.i18n import _

    try:
        parts = urlsplit(url)
        _port = parts.port
        if parts.scheme in ("http", "https") and parts.hostname and " " not in url:
            return None
    except ValueError:
        pass
    return _("« {value} » n'est pas une adresse de serveur (http://… ou https://…)").format(
        value=url
    )


def parse_entry(entry: Any) -> ModelServer | None:
    """One settings entry as a ModelServer; None when it cannot be one."""
    if not isinstance(entry, dict):
        return None
    kind, name, url = entry.get("kind"), entry.get("name"), entry.get("url")
    if kind not in KINDS or not isinstance(name, str) or not name.strip():
        return None
    if not isinstance(url, str) or check_url(url) is not None:
        return None
    lengths = entry.get("context_lengths")
    kept = (
        {str(k): v for k, v in lengths.items() if type(v) is int and v > 0}
        if isinstance(lengths, dict)
        else {}
    )
    system = entry.get("system")
    placement: SystemPlacement = "folded" if system == "folded" else "system"
    return ModelServer(
        kind, name.strip(), url.rstrip("/"), kept, entry.get("has_key") is True, placement
    )


def servers(settings: Settings) -> list[ModelServer]:
    """The servers, in the person's order; the migrated single Ollama host when none is set."""
    parsed = [s for s in (parse_entry(e) for e in settings.model_servers) if s is not None]
    unique: dict[str, ModelServer] = {}
    for server in parsed:
        unique.setdefault(server.name, server)
    if unique:
        return list(unique.values())
    return [ModelServer("ollama", DEFAULT_OLLAMA_NAME, resolve_host(None, settings))]


def current_server(settings: Settings) -> ModelServer:
    """The server of the selected model (`model_server`), else the first one."""
    listed = servers(settings)
    return next((s for s in listed if s.name == settings.model_server), listed[0])


def save_servers(settings: Settings, listed: list[ModelServer]) -> None:
    """Store `listed` in the settings; the first Ollama server's URL stays in `host` too, so
    an older Loki reading the file still finds it."""
    settings.model_servers = [server.to_json() for server in listed]
    ollama = next((s for s in listed if s.kind == "ollama"), None)
    if ollama is not None:
        settings.host = ollama.url
    if listed and settings.model_server not in {s.name for s in listed}:
        settings.model_server = listed[0].name


def cli_server(
    api: str | None, host: str | None, settings: Settings, environ: Mapping[str, str] = os.environ
) -> ModelServer:
    """The server a CLI command talks to.

    `--api openai`: `--host`, else $OPENAI_BASE_URL, else the first OpenAI-compatible server
    of the settings, else vLLM's default address. `--api ollama` or a bare `--host`: Ollama
    at that host (as before several servers existed). Neither: the selected model's server.
    """
    if api == "openai":
        url = host or environ.get("OPENAI_BASE_URL", "")
        configured = [s for s in servers(settings) if s.kind == "openai"]
        if not url:
            return configured[0] if configured else ModelServer("openai", "", DEFAULT_OPENAI_URL)
        url = url.rstrip("/")
        same = next((s for s in configured if s.url == url), None)
        return same or ModelServer("openai", "", url)
    if api == "ollama" or host:
        return ModelServer("ollama", "", resolve_host(host, settings))
    return current_server(settings)
