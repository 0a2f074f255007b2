"""The browser server and the workspace preview: which servers want it, what the model is told."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from loki_desktop.core.ports import ToolSpec

PLAYWRIGHT_ID = "playwright"
NAVIGATE_TOOL = "browser_navigate"


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
