"""User settings as a plain value; the persistence layer reads and writes it."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from typing import Any

DEFAULT_HOST = "http://127.0.0.1:11434"
DEFAULT_MAX_ROUNDS = 8
DEFAULT_NUM_CTX = 8192
# Réflexion: "auto" (the model's default: `think` is not sent), "off", "on", or a level
# name the model lists in /api/show ("low", "medium", "high"). See core.llm.thinking.
THINK_MODES = ("auto", "off", "on")
# How tools reach one model: "auto" (native when /api/show lists `tools`, else prompted),
# "native" (the request's `tools`), "prompted" (described in the system prompt, calls read
# from the text) or "none" (no tools at all).
TOOL_MODES = ("auto", "native", "prompted", "none")


@dataclass
class Settings:
    """Everything the user can set. Secrets are never here (they live in the keyring).

    `mcp_servers` maps a server id to its plain JSON entry (enabled flag, parameters,
    and for custom servers their command or URL); `core.mcp.config` gives it types.
    `ui` holds window state the core never reads (geometry, splitter sizes).
    `think` is the Réflexion setting (see THINK_MODES; a level name is sent only to a
    model that lists it). `tool_modes` maps a model name to how tools reach it (see
    TOOL_MODES); a model not in it is "auto".
    """

    host: str = ""
    model: str = ""
    max_rounds: int = DEFAULT_MAX_ROUNDS
    num_ctx: int = DEFAULT_NUM_CTX
    skills_enabled: bool = True
    auto_checks: bool = True
    think: str = "auto"
    tool_modes: dict[str, str] = field(default_factory=dict)
    workspace: str = ""
    recent_workspaces: list[str] = field(default_factory=list)
    mcp_servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    ui: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> tuple[Settings, list[str]]:
        """Build settings from a parsed file, keeping defaults for unknown or ill-typed keys.

        Returns the settings and the names of the keys that were ignored.
        """
        settings = cls()
        ignored: list[str] = []
        for f in fields(cls):
            if f.name not in data:
                continue
            value = data[f.name]
            default = getattr(settings, f.name)
            # bool is an int subclass: compare exact types so `true` is not a max_rounds
            if type(value) is not type(default):
                ignored.append(f.name)
                continue
            setattr(settings, f.name, value)
        ignored += [key for key in data if key not in {f.name for f in fields(cls)}]
        return settings, ignored


def resolve_host(cli_host: str | None, settings: Settings) -> str:
    """`--host`, else the settings, else $OLLAMA_HOST, else the local default."""
    host = cli_host or settings.host or os.environ.get("OLLAMA_HOST", "") or DEFAULT_HOST
    if "://" not in host:
        # OLLAMA_HOST is often given as "0.0.0.0:11434" or "localhost"
        host = f"http://{host}"
    return host.rstrip("/")
