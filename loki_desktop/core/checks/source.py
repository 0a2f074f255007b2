"""Reading a file for a check: a size cap; binary or undecodable bytes become problems."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from loki_desktop.core.bounded_read import FileTooBig, NotRegularFile, read_bounded
from loki_desktop.core.checks.model import CheckResult
from loki_desktop.core.events import Problem
from loki_desktop.core.i18n import _

# Checking a bigger file would block the app for seconds (html5lib reads ~1 MB/s):
# such files are generated, not written by hand or by the agent.
MAX_BYTES = 1_000_000


@dataclass(frozen=True, slots=True)
class Source:
    """The bytes of a checkable file, read once."""

    path: Path
    data: bytes


__all__ = ["NotRegularFile"]  # the checkers' callers catch it from here

# How a checker reads a file: by path here; through the workspace jail for the agent's checks.
Reader = Callable[[Path, int], bytes]


def read_source(path: Path, read: Reader | None = None) -> Source | CheckResult:
    """The file's bytes, or the result that explains why there is nothing to check."""
    too_big = False
    try:
        data = (read or read_bounded)(path, MAX_BYTES + 1)
    except FileTooBig:
        data = b""  # told below, as a file over the limit
        too_big = True
    except IsADirectoryError:
        return _unreadable(_("c'est un dossier, pas un fichier"))
    except NotRegularFile:
        return _unreadable(
            _("ce n'est pas un fichier ordinaire (un tube, une socket ou un périphérique)")
        )
    except FileNotFoundError:
        return _unreadable(_("fichier introuvable"))
    except PermissionError:
        return _unreadable(_("permission refusée"))
    except OSError as exc:
        return _unreadable(exc.strerror or str(exc))
    if too_big or len(data) > MAX_BYTES:
        return CheckResult(
            skipped=_("non vérifié : le fichier dépasse {n} Mo").format(n=MAX_BYTES // 1_000_000)
        )
    nul = data.find(b"\x00")
    if nul >= 0:
        line, col = position(data, nul)
        binary = _("contenu binaire (un octet NUL) : ce n'est pas un fichier texte")
        return CheckResult((Problem(line, col, binary),))
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
        return Problem(
            line,
            col,
            _("texte qui n'est pas en UTF-8 (octet 0x{byte})").format(
                byte=f"{data[exc.start]:02x}"
            ),
        )


def end_position(text: str) -> tuple[int, int]:
    """Line and column just after the last character (where "end of file" errors point)."""
    lines = text.split("\n")
    return len(lines), len(lines[-1]) + 1


def _unreadable(reason: str) -> CheckResult:
    return CheckResult(
        skipped=_("lecture du fichier impossible : {reason}").format(reason=reason), unreadable=True
    )
