"""A workspace's knowledge for a turn, its index file named after the workspace's path."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from loki_desktop.core.knowledge.index import Knowledge, KnowledgeTools
from loki_desktop.core.memory.vector_state import EmbedderChoice
from loki_desktop.core.ports import PassageStore


def knowledge_tools(
    root: Path, open_index: Callable[[Path], PassageStore], embedders: EmbedderChoice
) -> KnowledgeTools:
    """The search_workspace tool over `root`'s index (opened at the first turn's prepare)."""
    folder = root.resolve()
    return KnowledgeTools(Knowledge(folder, lambda: open_index(folder), embedders))
