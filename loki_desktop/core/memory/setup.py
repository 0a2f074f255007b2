"""The memories of a process, built from the settings and the model server in use."""

from __future__ import annotations

from collections.abc import Callable

from loki_desktop.core.llm.backends import api_key
from loki_desktop.core.memory.embedders import ServerEmbedder
from loki_desktop.core.memory.recall import Memories
from loki_desktop.core.memory.vector_state import EmbedderChoice
from loki_desktop.core.model_servers import ModelServer
from loki_desktop.core.ports import MemoryStore, SecretStore
from loki_desktop.core.settings import Settings


def memories_for(
    settings: Settings,
    server: ModelServer,
    open_store: Callable[[], MemoryStore],
    secrets: SecretStore | None = None,
) -> Memories:
    """Memories whose vectors come from the server's embedding model (the setting), else
    from the embedded one. Nothing is opened or asked until the first recall."""
    return Memories(open_store, embedders_for(settings, server, secrets))


def embedders_for(
    settings: Settings, server: ModelServer, secrets: SecretStore | None = None
) -> EmbedderChoice:
    """The server's embedding model (the setting), else the embedded one, else words."""
    model = settings.embedding_model.strip()
    primary = (
        ServerEmbedder(server.kind, server.url, model, api_key(server, secrets)) if model else None
    )
    return EmbedderChoice(primary)
