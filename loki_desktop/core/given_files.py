"""Reading a file a person gave (an attachment, AGENTS.md): a regular file, never past a limit."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from loki_desktop.core.i18n import _


class GivenFileError(OSError):
    """The file cannot be read as asked; the message is one sentence for the person."""


class GivenFileTooBig(GivenFileError):
    """The file is larger than the limit: the caller says so with its own limit."""

    def __init__(self, name: str, size: int) -> None:
        super().__init__(name)
        self.name = name
        self.size = size


def read_given_file(path: Path, limit: int) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them.

    Opened without blocking (a FIFO or a device never hangs the caller), checked with fstat on
    the open descriptor (no swap between the check and the read), and read to `limit` + 1
    bytes so a file that grows meanwhile is still refused. Raises GivenFileError.
    """
    name = path.name or str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise GivenFileError(
            _("« {name} » n'existe plus (déplacé ou supprimé ?).").format(name=name)
        ) from None
    except IsADirectoryError:
        raise GivenFileError(_("« {name} » est un dossier.").format(name=name)) from None
    except OSError as exc:
        raise GivenFileError(_unreadable(name, exc)) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise GivenFileError(_("« {name} » est un dossier.").format(name=name))
        if not stat.S_ISREG(info.st_mode):  # a FIFO, a device, a socket
            raise GivenFileError(_("« {name} » n'est pas un fichier ordinaire.").format(name=name))
        if info.st_size > limit:
            raise GivenFileTooBig(name, info.st_size)
        data = _read_up_to(fd, limit + 1)
    except GivenFileError:
        raise
    except OSError as exc:
        raise GivenFileError(_unreadable(name, exc)) from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise GivenFileTooBig(name, len(data))
    return data


def _read_up_to(fd: int, count: int) -> bytes:
    chunks: list[bytes] = []
    left = count
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _unreadable(name: str, exc: OSError) -> str:
    return _("Impossible de lire « {name} » : {error}.").format(
        name=name, error=exc.strerror or type(exc).__name__
    )
