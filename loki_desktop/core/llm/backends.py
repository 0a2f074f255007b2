"""One ChatBackend for a model server of the settings: Ollama's API or an OpenAI-compatible one."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from loki_desktop.core.model_servers import ModelServer, key_name
from loki_desktop.core.ports import SecretStore, SecretStoreUnavailable

if TYPE_CHECKING:
    from loki_desktop.core.llm.ollama import OllamaBackend
    from loki_desktop.core.llm.openai_backend import OpenAIBackend


def api_key(
    server: ModelServer, secrets: SecretStore | None, environ: Mapping[str, str] = os.environ
) -> str:
    """The server's key: the keyring's, else $OPENAI_API_KEY (the convention of OpenAI's own
    clients, for an OpenAI-compatible server), else none. A locked keyring reads as none:
    the server then says 401, which is shown as a sentence."""
    if secrets is not None and server.name and server.has_key:
        try:
            stored = secrets.get(key_name(server.name))
        except SecretStoreUnavailable:
            stored = None
        if stored:
            return stored
    if server.kind == "openai":
        return environ.get("OPENAI_API_KEY", "")
    return ""


def make_backend(
    server: ModelServer, secrets: SecretStore | None = None, *, key: str | None = None
) -> OllamaBackend | OpenAIBackend:
    """The backend of `server` (imports only the one it needs). `key` overrides the
    keyring (the connection test of a key not stored yet)."""
    if server.kind == "openai":
        from loki_desktop.core.llm.openai_backend import OpenAIBackend

        return OpenAIBackend(
            server.url,
            api_key=key if key is not None else api_key(server, secrets),
            label=server.name,
            context_lengths=server.context_lengths,
            fold_system=server.system == "folded",
        )
    from loki_desktop.core.llm.ollama import OllamaBackend

    return OllamaBackend(server.url)
