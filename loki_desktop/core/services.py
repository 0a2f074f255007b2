"""The outside world as the CLI and the window receive it from the composition root."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from loki_desktop.core.ports import (
    CheckpointStore,
    ConversationStore,
    MemoryStore,
    PassageStore,
    SecretStore,
    SettingsStore,
)


@dataclass
class Services:
    settings: SettingsStore
    secrets: SecretStore
    # history.db is opened only by the commands that need it (not by `skills` or `check`)
    open_history: Callable[[], ConversationStore]
    # the window's: writes on a thread of their own, streamed text in batches, so the GUI
    # thread never waits on SQLite for a write (persistence.history_writer)
    open_window_history: Callable[[], ConversationStore]
    user_skills_dir: Path
    data_home: Path
    # a throwaway history at a path (`eval` gives each task its own, in a temp folder)
    open_history_at: Callable[[Path], ConversationStore] | None = None
    # the checkpoints of changed files (undo); opened by the commands and the window that need it
    open_checkpoints: Callable[[], CheckpointStore] | None = None
    # what Loki remembers (memories.db); opened at the first recall, only when memories are on
    open_memories: Callable[[], MemoryStore] | None = None
    # a workspace's index (outside the workspace, one file per folder), opened at a turn
    open_index: Callable[[Path], PassageStore] | None = None
