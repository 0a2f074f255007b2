"""Reading workspace files as text for the model, and capping what goes back to it."""

from __future__ import annotations

TOOL_RESULT_CAP = 8_000
# Reading more than this is pointless: the result is cut at TOOL_RESULT_CAP anyway.
READ_LIMIT_BYTES = 1_000_000
BINARY_SNIFF_BYTES = 8_192


class NotText(Exception):
    """The file is binary or not UTF-8; the message says which, for the model."""


def cap(text: str, limit: int = TOOL_RESULT_CAP) -> str:
    """Cut `text` to `limit` characters with a visible marker saying how much was left out."""
    if len(text) <= limit:
        return text
    marker = f"\n[... output cut: {len(text) - limit} more characters not shown ...]"
    return text[: max(0, limit - len(marker))] + marker


def looks_binary(head: bytes) -> bool:
    return b"\x00" in head[:BINARY_SNIFF_BYTES]


def decode_text(data: bytes, truncated: bool, name: str) -> str:
    """The UTF-8 text of a file's first bytes. Raises NotText for binaries and other encodings."""
    if looks_binary(data):
        raise NotText(f"{name} is a binary file; read_file only reads text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        # a cut in the middle of a multi-byte character is not a decoding problem
        if truncated and exc.start >= len(data) - 3:
            return data[: exc.start].decode("utf-8")
        raise NotText(f"{name} is not UTF-8 text (invalid byte at offset {exc.start})") from None
