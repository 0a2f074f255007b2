"""MCP servers started as real processes by the MCP tests (one script per behaviour)."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent


def script(name: str) -> str:
    """The absolute path of one server script, e.g. script("echo")."""
    return str(HERE / f"{name}.py")
