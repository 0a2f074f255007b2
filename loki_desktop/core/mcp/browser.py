"""The browser server and the workspace preview: which servers want it, what the model is told."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from loki_desktop.core.ports import ToolSpec

PLAYWRIGHT_ID = "playwright"
NAVIGATE_TOOL = "browser_navigate"


def browser_enabled(raw_servers: Mapping[str, Any]) -> bool:
    """Whether the settings' MCP entries turn the catalogue's browser (Playwright) on."""
    entry = raw_servers.get(PLAYWRIGHT_ID) if isinstance(raw_servers, Mapping) else None
    return isinstance(entry, Mapping) and entry.get("enabled") is True


def preview_note(url: str) -> str:
    """What the model reads in the navigate tool's description while the preview runs."""
    return (
        f"The workspace is served read-only at {url} : open a file you wrote there, "
        f"e.g. {url}index.html for index.html (file:// URLs are blocked)."
    )


def with_preview(specs: Sequence[ToolSpec], url: str) -> list[ToolSpec]:
    """The specs, each browser's navigate tool telling where the workspace is served."""
    note = preview_note(url)
    return [
        dataclasses.replace(spec, description=f"{spec.description}\n{note}")
        if spec.name.endswith(f"_{NAVIGATE_TOOL}") and spec.source != "native"
        else spec
        for spec in specs
    ]


def preview_instead_of_file(url: str, workspace: Path, preview_url: str) -> str | None:
    """The preview's URL of a workspace file given as `file://` (the browser blocks that
    scheme); None for any other URL, or a file outside the workspace."""
    parts = urlsplit(url)
    if parts.scheme.lower() != "file" or parts.netloc not in ("", "localhost"):
        return None
    try:
        relative = Path(unquote(parts.path)).resolve().relative_to(workspace.resolve())
    except (ValueError, OSError):
        return None  # outside the workspace: the preview does not serve it
    suffix = f"?{parts.query}" if parts.query else ""
    suffix += f"#{parts.fragment}" if parts.fragment else ""
    return preview_url + quote(relative.as_posix()) + suffix


def rewritten_note(url: str, served: str) -> str:
    """What the model reads before the navigation's own result (English: the model reads it)."""
    return (
        f"Note: {url} was opened as {served} (the workspace preview): the browser blocks "
        "file:// URLs.\n"
    )
