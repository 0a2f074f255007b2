"""Reading a file for a check: a size cap; binary or undecodable bytes become problems."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from loki_desktop.core.checks.model import CheckResult
from loki_desktop.core.events import Problem

# Checking a bigger file would block the app for seconds (html5lib reads ~1 MB/s):
# such files are generated, not written by hand or by the agent.
MAX_BYTES = 1_000_000


@dataclass(frozen=True, slots=True)
class Source:
    """The bytes of a checkable file, read once."""

    path: Path
    data: bytes


def read_source(path: Path) -> Source | CheckResult:
    """The file's bytes, or the result that explains why there is nothing to check."""
    try:
        if path.is_dir():
            return _unreadable("it is a folder, not a file")
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return _unreadable("no such file")
    except PermissionError:
        return _unreadable("permission denied")
    except OSError as exc:
        return _unreadable(exc.strerror or str(exc))
    if len(data) > MAX_BYTES:
        return CheckResult(
            skipped=f"not checked: the file is larger than {MAX_BYTES // 1_000_000} MB"
        )
    nul = data.find(b"\x00")
    if nul >= 0:
        line, col = position(data, nul)
        return CheckResult((Problem(line, col, "binary content (a NUL byte): not a text file"),))
    return Source(path, data)


def position(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and character column of a byte offset."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    line = data.count(b"\n", 0, offset) + 1
    col = len(data[line_start:offset].decode("utf-8", errors="replace")) + 1
    return line, col


def decode_utf8(data: bytes) -> str | Problem:
    """The text of a UTF-8 file (a BOM is accepted), or where the first bad byte is."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line, col = position(data, exc.start)
        return Problem(line, col, f"not valid UTF-8 text (byte 0x{data[exc.start]:02x})")


def end_position(text: str) -> tuple[int, int]:
    """Line and column just after the last character (where "end of file" errors point)."""
    lines = text.split("\n")
    return len(lines), len(lines[-1]) + 1


def _unreadable(reason: str) -> CheckResult:
    return CheckResult(skipped=f"cannot read the file: {reason}", unreadable=True)
