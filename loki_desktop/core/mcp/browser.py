"""The browser server and the workspace preview: which servers want it, what the model is told."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

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
