"""Where Loki keeps its data: $LOKI_HOME when set, else the platform's user data folder."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "loki-desktop"


def data_home() -> Path:
    """The one folder holding settings, history and user skills (created on demand)."""
    override = os.environ.get("LOKI_HOME")
    home = Path(override).expanduser() if override else Path(platformdirs.user_data_dir(APP_NAME))
    home.mkdir(parents=True, exist_ok=True)
    return home


def settings_path() -> Path:
    return data_home() / "settings.json"


def history_path() -> Path:
    return data_home() / "history.db"


def user_skills_dir() -> Path:
    return data_home() / "skills"


def checkpoints_dir() -> Path:
    return data_home() / "checkpoints"


def memories_path() -> Path:
    return data_home() / "memories.db"


def index_path(workspace: Path) -> Path:
    """A workspace's index, outside it: index/<sha256 of its resolved path>.db."""
    import hashlib

    digest = hashlib.sha256(str(workspace.resolve()).encode()).hexdigest()[:24]
    return data_home() / "index" / f"{digest}.db"
