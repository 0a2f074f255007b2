"""Reading a file a person gave (an attachment, AGENTS.md): a regular file, never past a limit."""

from __future__ import annotations

from pathlib import Path

from loki_desktop.core.bounded_read import FileTooBig, NotRegularFile, read_bounded
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
        # the one reader of given paths (core.bounded_read); its refusals in the person's words
        return read_bounded(path, limit)
    except FileTooBig as exc:
        # its size as the system says it, when bigger than what was read (one past the limit)
        raise GivenFileTooBig(name, max(exc.size, _said_size(path))) from None
    except FileNotFoundError:
        raise GivenFileError(
            _("« {name} » n'existe plus (déplacé ou supprimé ?).").format(name=name)
        ) from None
    except IsADirectoryError:
        raise GivenFileError(_("« {name} » est un dossier.").format(name=name)) from None
    except NotRegularFile:  # a FIFO, a device, a socket
        raise GivenFileError(
            _("« {name} » n'est pas un fichier ordinaire.").format(name=name)
        ) from None
    except OSError as exc:
        raise GivenFileError(_unreadable(name, exc)) from None


def _said_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _unreadable(name: str, exc: OSError) -> str:
    return _("Impossible de lire « {name} » : {error}.").format(
        name=name, error=exc.strerror or type(exc).__name__
    )
