"""An image given to a vision model: a value below the events and the messages that carry it."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, slots=True)
class ImageAttachment:
    """An image given to a vision model (attached by the person, or returned by an MCP tool).

    Built by `core.images` (checked PNG/JPEG/WebP/GIF, downscaled to at most
    `core.images.MAX_SIDE` px on its long side). A fresh attachment holds its bytes in
    `data`; one read back from the history holds only `path` (a file under the data
    folder, deleted with its conversation): `content()` reads either.
    """

    mime_type: str  # "image/png", "image/jpeg", "image/webp" or "image/gif"
    width: int
    height: int
    data: bytes = field(default=b"", repr=False)
    path: Path | None = None
    name: str = ""  # the file name it came from (for people; may be empty)

    def content(self) -> bytes:
        """The image bytes (read from `path` when not held in memory); raises OSError."""
        if self.data:
            return self.data
        if self.path is None:
            return b""
        return self.path.read_bytes()

    def to_base64(self) -> str:
        """The image as Ollama's /api/chat `images` entries take it."""
        return base64.b64encode(self.content()).decode("ascii")
