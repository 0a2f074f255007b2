"""The context a server really runs a model with: the one place that decides it.

Ollama keeps the `num_ctx` a request sends; a request without it runs with the model's own
`num_ctx` (a `PARAMETER num_ctx` line of its Modelfile, shown in /api/show `parameters`),
else with the server's default (4,096 tokens below 24 GiB of VRAM, docs/context-length.mdx).
Whatever is chosen never exceeds what the model was trained for (`context_length`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from loki_desktop.core.i18n import _
from loki_desktop.core.ports import ModelProfile

# Ollama's default context when neither the request nor the Modelfile set one (no GPU, or
# less than 24 GiB of VRAM, which is every machine Loki targets).
OLLAMA_DEFAULT_CONTEXT = 4096
# When the server says nothing at all (an OpenAI-compatible server with no `max_model_len`).
ASSUMED_CONTEXT = 8192

ContextSource = Literal["setting", "model", "server", "assumed"]


@dataclass(frozen=True, slots=True)
class ContextSize:
    """The tokens a request may use, and where that number comes from."""

    tokens: int
    source: ContextSource

    def describe(self) -> str:
        """One line for the model's details (Réglages, `models show`)."""
        where = {
            "setting": _("réglage « Contexte du modèle »"),
            "model": _("num_ctx du Modelfile du modèle"),
            "server": _("valeur par défaut du serveur"),
            "assumed": _("supposé : le serveur ne dit rien"),
        }[self.source]
        return _("{n} jetons ({where})").format(n=f"{self.tokens:,}".replace(",", " "), where=where)


def effective_context(setting: int, profile: ModelProfile | None) -> ContextSize:
    """`setting` (0: the person set none), else the model's own num_ctx, else the server's
    default; each capped by the model's trained length when the server gives it."""
    trained = profile.context_length if profile is not None else None
    if setting > 0:
        size = ContextSize(setting, "setting")
    elif profile is not None and profile.modelfile_ctx:
        size = ContextSize(profile.modelfile_ctx, "model")
    elif profile is not None and profile.server_ctx:
        size = ContextSize(profile.server_ctx, "server")
    elif trained:
        size = ContextSize(trained, "server")
    else:
        size = ContextSize(ASSUMED_CONTEXT, "assumed")
    if trained and size.tokens > trained:
        return ContextSize(trained, size.source)
    return size


def request_options(setting: int) -> dict[str, int]:
    """The request's `options`: `num_ctx` only when the person set one (otherwise the server
    applies the model's own, which is what the budget counts on)."""
    return {"num_ctx": setting} if setting > 0 else {}


def modelfile_num_ctx(parameters: object) -> int | None:
    """`num_ctx` from /api/show `parameters` (lines "name value", e.g. "num_ctx 2048")."""
    if not isinstance(parameters, str):
        return None
    for line in parameters.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "num_ctx" and parts[1].isdigit():
            value = int(parts[1])
            return value if value > 0 else None
    return None
