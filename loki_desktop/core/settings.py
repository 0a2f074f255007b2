"""User settings as a plain value, each field typed and bounded; persistence reads and writes it."""

from __future__ import annotations

import functools
import json
import os
import typing
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any
from urllib.parse import urlsplit

from loki_desktop.core.i18n import CHOICES as LANGUAGE_CHOICES
from loki_desktop.core.i18n import _

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
# The window's spin box offers the same bounds.
MAX_ROUNDS_RANGE = (1, 50)
# Below 2048 the answer reserve (core.llm.budget) leaves almost nothing for the request;
# above a million tokens no local model goes.
NUM_CTX_RANGE = (2048, 1_048_576)
# What the checkpoints of changed files (core.changes) may take on disk, in MB; the oldest
# turns' checkpoints are dropped beyond it. Below 10 MB one ordinary turn would not fit.
DEFAULT_CHECKPOINTS_BUDGET_MB = 500
CHECKPOINTS_BUDGET_RANGE = (10, 100_000)
# An answer's caps (core.llm.caps), 0 = none. 8192 tokens leaves room for a whole file written
# through a tool call; 30 min of streaming is past any answer a local model means to give, and
# the repetition guard stops a loop long before either.
DEFAULT_ANSWER_TOKENS = 8192
ANSWER_TOKENS_RANGE = (0, 1_000_000)
DEFAULT_ANSWER_SECONDS = 1800
ANSWER_SECONDS_RANGE = (0, 86_400)
ANSWER_CAP_KEYS = ("max_tokens", "timeout_s")


# A check of a value beyond its type: the reason it is refused (French, for a notice), or None.
Check = Callable[[Any], str | None]


def _between(low: int, high: int) -> dict[str, Any]:
    def check(value: int) -> str | None:
        if low <= value <= high:
            return None
        return _("{value} n'est pas entre {low} et {high}").format(value=value, low=low, high=high)

    return {"range": (low, high), "check": check}


def _host_check(value: str) -> str | None:
    """Empty (the default host), or an address the HTTP client can use."""
    if not value:
        return None
    try:
        parts = urlsplit(value if "://" in value else f"http://{value}")
        _port = parts.port  # raises on a port that is not a number
        if parts.scheme in ("http", "https") and parts.hostname and " " not in value:
            return None
    except ValueError:
        pass
    return _("« {value} » n'est pas une adresse de serveur").format(value=value)


def _think_check(value: str) -> str | None:
    """A mode, or a level name as /api/show lists them (a word)."""
    if value in THINK_MODES or (value.isascii() and value.isalpha() and len(value) <= 20):
        return None
    return _("« {value} » n'est ni {modes} ni un niveau").format(
        value=value, modes=", ".join(THINK_MODES)
    )


def _language_check(value: str) -> str | None:
    if value in LANGUAGE_CHOICES:
        return None
    return _("« {value} » n'est pas l'un de {choices}").format(
        value=value, choices=", ".join(LANGUAGE_CHOICES)
    )


def _caps_check(value: dict[str, dict[str, int]]) -> str | None:
    """Per model: `max_tokens` and `timeout_s`, each a number from 0 (no cap)."""
    for caps in value.values():
        for key, number in caps.items():
            if key not in ANSWER_CAP_KEYS:
                return _("« {key} » n'est pas l'un de {keys}").format(
                    key=key, keys=", ".join(ANSWER_CAP_KEYS)
                )
            if number < 0:
                return _("{value} est négatif").format(value=number)
    return None


def _modes_check(value: dict[str, str]) -> str | None:
    wrong = sorted(mode for mode in value.values() if mode not in TOOL_MODES)
    if not wrong:
        return None
    return _("« {mode} » n'est pas l'un de {modes}").format(
        mode=wrong[0], modes=", ".join(TOOL_MODES)
    )


@dataclass
class Settings:
    """Everything the user can set. Secrets are never here (they live in the keyring).

    `mcp_servers` maps a server id to its plain JSON entry (enabled flag, parameters,
    and for custom servers their command or URL); `core.mcp.config` gives it types.
    `ui` holds window state the core never reads (geometry, splitter sizes).
    `think` is the Réflexion setting (see THINK_MODES; a level name is sent only to a
    model that lists it). `tool_modes` maps a model name to how tools reach it (see
    TOOL_MODES); a model not in it is "auto".
    Each field's annotation is its type, checked when the file is read (see `from_json`);
    a `check` in its metadata bounds it further.
    """

    host: str = field(default="", metadata={"check": _host_check})
    model: str = ""
    max_rounds: int = field(default=DEFAULT_MAX_ROUNDS, metadata=_between(*MAX_ROUNDS_RANGE))
    num_ctx: int = field(default=DEFAULT_NUM_CTX, metadata=_between(*NUM_CTX_RANGE))
    skills_enabled: bool = True
    auto_checks: bool = True
    # "Demander avant d'écrire": write_file / edit_file wait for the approver (the diff shown)
    review_writes: bool = False
    checkpoints_budget_mb: int = field(
        default=DEFAULT_CHECKPOINTS_BUDGET_MB, metadata=_between(*CHECKPOINTS_BUDGET_RANGE)
    )
    think: str = field(default="auto", metadata={"check": _think_check})
    tool_modes: dict[str, str] = field(default_factory=dict, metadata={"check": _modes_check})
    # the longest answer (tokens) and its longest streaming time (seconds); 0: no cap
    answer_max_tokens: int = field(
        default=DEFAULT_ANSWER_TOKENS, metadata=_between(*ANSWER_TOKENS_RANGE)
    )
    answer_timeout_s: int = field(
        default=DEFAULT_ANSWER_SECONDS, metadata=_between(*ANSWER_SECONDS_RANGE)
    )
    # per model, over the two above: {"gemma3:270m": {"max_tokens": 512, "timeout_s": 60}}
    model_answer_caps: dict[str, dict[str, int]] = field(
        default_factory=dict, metadata={"check": _caps_check}
    )
    # "auto" (the system's language), "fr" or "en"; read at start-up (a change needs a restart)
    language: str = field(default="auto", metadata={"check": _language_check})
    workspace: str = ""
    recent_workspaces: list[str] = field(default_factory=list)
    # each entry is checked on its own by core.mcp.config (one bad server never drops the others)
    mcp_servers: dict[str, dict[str, Any]] = field(
        default_factory=dict, metadata={"entries_checked_elsewhere": True}
    )
    ui: dict[str, Any] = field(default_factory=dict)
    # the model servers (core.model_servers types them; a bad entry is skipped there, the
    # others kept); empty: one Ollama server at `host`. `model_server` names the server of
    # `model` (the picker remembers both).
    model_servers: list[dict[str, Any]] = field(
        default_factory=list, metadata={"entries_checked_elsewhere": True}
    )
    model_server: str = ""
    # Réglages → Intelligence: memories recalled before each turn and kept when asked
    # (« retiens que… »); off: no memory file opened, nothing embedded
    memories: bool = True
    # « Retenir à la fin d'une conversation »: leaving a conversation, one call to the
    # model keeps what it taught about the person (shown, each with Oublier); off by default
    memory_extraction: bool = False
    # Réglages → Intelligence: the workspace's files indexed (outside it) for the
    # search_workspace tool; off: no index opened
    workspace_index: bool = True
    # the server's embedding model for memories (Ollama /api/embed, OpenAI /embeddings);
    # empty, or missing on the server: the embedded model (core.memory.embedders)
    embedding_model: str = "embeddinggemma"

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> tuple[Settings, list[str]]:
        """Build settings from a parsed file, one field at a time: a field of the wrong type
        or out of its range keeps its default, and the others are kept.

        Returns the settings and one notice per field refused (naming it) or unknown.
        """
        settings = cls()
        notices: list[str] = []
        hints = _field_types()
        for f in fields(cls):
            if f.name not in data:
                continue
            value = data[f.name]
            hint = hints[f.name]
            if f.metadata.get("entries_checked_elsewhere"):
                hint = list[Any] if typing.get_origin(hint) is list else dict[str, Any]
            reason = _refusal(value, hint, f.metadata.get("check"))
            if reason is None:
                setattr(settings, f.name, value)
                continue
            notices.append(
                _(
                    "Réglage « {name} » ignoré ({reason}) : la valeur par défaut {default} "
                    "est utilisée."
                ).format(
                    name=f.name,
                    reason=reason,
                    default=json.dumps(getattr(settings, f.name), ensure_ascii=False),
                )
            )
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                notices.append(_("Réglage inconnu « {name} » ignoré.").format(name=key))
        return settings, notices


def setting_range(name: str) -> tuple[int, int] | None:
    """The bounds of a number setting (the window's controls offer the same)."""
    for f in fields(Settings):
        if f.name == name:
            bounds = f.metadata.get("range")
            return bounds if bounds is None else (int(bounds[0]), int(bounds[1]))
    return None


@functools.cache
def _field_types() -> dict[str, Any]:
    return typing.get_type_hints(Settings)


def _refusal(value: Any, hint: Any, check: Check | None) -> str | None:
    """Why `value` cannot be this setting (French), or None when it can."""
    if not _has_type(value, hint):
        return _("{kind} attendu, pas {value}").format(kind=_kind(hint), value=_shown(value))
    return check(value) if check is not None else None


def _has_type(value: Any, hint: Any) -> bool:
    if hint is Any:
        return True
    origin = typing.get_origin(hint)
    if origin is list:
        (item,) = typing.get_args(hint)
        return isinstance(value, list) and all(_has_type(v, item) for v in value)
    if origin is dict:
        key, item = typing.get_args(hint)
        return isinstance(value, dict) and all(
            _has_type(k, key) and _has_type(v, item) for k, v in value.items()
        )
    # bool is an int subclass: compare exact types so `true` is not a max_rounds
    return type(value) is hint


def _kind(hint: Any) -> str:
    origin = typing.get_origin(hint) or hint
    kinds: dict[Any, str] = {
        bool: _("vrai ou faux"),
        int: _("un nombre entier"),
        str: _("un texte"),
        list: _("une liste de textes"),
        dict: _("un objet"),
    }
    return kinds.get(origin, str(hint))


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:39] + "…"


def resolve_host(cli_host: str | None, settings: Settings) -> str:
    """`--host`, else the settings, else $OLLAMA_HOST, else the local default."""
    host = cli_host or settings.host or os.environ.get("OLLAMA_HOST", "") or DEFAULT_HOST
    if "://" not in host:
        # OLLAMA_HOST is often given as "0.0.0.0:11434" or "localhost"
        host = f"http://{host}"
    return host.rstrip("/")
