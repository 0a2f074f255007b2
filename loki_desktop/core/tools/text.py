"""Reading workspace files as text for the model, and capping what goes back to it."""

from __future__ import annotations

from pathlib import Path

from loki_desktop.core.checks.source import NotRegularFile, read_regular_file

TOOL_RESULT_CAP = 8_000
# Reading more than this is pointless: the result is cut at TOOL_RESULT_CAP anyway.
READ_LIMIT_BYTES = 1_000_000
BINARY_SNIFF_BYTES = 8_192


class NotText(Exception):
    """The file is binary, not UTF-8, or no file at all (a pipe, a device); the message says
    which, for the model."""


def cap(text: str, limit: int = TOOL_RESULT_CAP) -> str:
    """Cut `text` to `limit` characters with a visible marker saying how much was left out."""
    if len(text) <= limit:
        return text
    marker = f"\n[... output cut: {len(text) - limit} more characters not shown ...]"
    return text[: max(0, limit - len(marker))] + marker


def looks_binary(head: bytes) -> bool:
    return b"\x00" in head[:BINARY_SNIFF_BYTES]


def read_text(path: Path, limit_bytes: int = READ_LIMIT_BYTES) -> tuple[str, bool]:
    """Read a UTF-8 text file; returns (text, was_truncated). Raises NotText for binaries."""
    try:
        data = read_regular_file(path, limit_bytes + 1)
    except NotRegularFile:
        raise NotText(
            f"{path.name} is not a regular file (a pipe, a socket or a device); "
            "only files can be read"
        ) from None
    truncated = len(data) > limit_bytes
    data = data[:limit_bytes]
    if looks_binary(data):
        raise NotText(f"{path.name} is a binary file; read_file only reads text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        # a cut in the middle of a multi-byte character is not a decoding problem
        if truncated and exc.start >= len(data) - 3:
            text = data[: exc.start].decode("utf-8")
        else:
            raise NotText(
                f"{path.name} is not UTF-8 text (invalid byte at offset {exc.start})"
            ) from None
    return text, truncated
