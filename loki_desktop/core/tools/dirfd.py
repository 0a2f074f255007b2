"""A folder held open: every operation relative to it, never following a symbolic link.

On POSIX the folder is a directory descriptor, and each call is an `*at()` call on it
(`openat`, `mkdirat`, `renameat`, ...) with O_NOFOLLOW: once a folder is open, swapping
its path for a symbolic link changes nothing for us. Where the platform has no `dir_fd`
(Windows) the folder is a path and each call checks by name: not race-free (docs/guarantees.md).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
from collections.abc import Callable
from dataclasses import dataclass

try:
    import fcntl
except ImportError:  # Windows: an open file cannot be deleted there anyway
    fcntl = None  # type: ignore[assignment]  # a module or nothing, tested where used

O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
O_BINARY = getattr(os, "O_BINARY", 0)
HAS_DIR_FD = (
    os.open in os.supports_dir_fd
    and os.mkdir in os.supports_dir_fd
    and os.rename in os.supports_dir_fd
    and os.scandir in os.supports_fd
    and O_NOFOLLOW != 0
)
# What opening a symbolic link with O_NOFOLLOW raises (FreeBSD says EMLINK).
LINK_ERRNOS = frozenset({errno.ELOOP, errno.EMLINK})

# `.name.<8 random characters>.tmp`: what tempfile.mkstemp made before, what we make now
TEMP_NAME = re.compile(r"^\.(?P<name>.+)\.[a-z0-9_]{8}\.tmp$")
_TEMP_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"


def temp_name(name: str) -> str:
    random = "".join(secrets.choice(_TEMP_CHARS) for _ in range(8))
    return f".{name}.{random}.tmp"


@dataclass(frozen=True, slots=True)
class Listed:
    """One entry of a folder, as it is (a link is a link, never what it points to)."""

    name: str
    kind: str  # "dir", "file", "link" or "other"
    size: int


class Dir:
    """An open folder. `close()` it (or use `with`)."""

    def __init__(self, fd: int | None, path: str) -> None:
        self.fd = fd
        self.path = path  # for messages, and the only handle where there is no dir_fd

    @classmethod
    def open(cls, path: str) -> Dir:
        if not HAS_DIR_FD:
            return cls(None, path)
        return cls(os.open(path, os.O_RDONLY | O_DIRECTORY | O_CLOEXEC), path)

    def close(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            os.close(fd)

    def __enter__(self) -> Dir:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _at(self, name: str) -> str:
        return os.path.join(self.path, name)

    def child(self, name: str) -> Dir:
        """The sub-folder `name`. A link raises OSError(ELOOP); a file, NotADirectoryError."""
        if self.fd is None:
            if os.path.islink(self._at(name)):
                raise OSError(errno.ELOOP, "is a symbolic link", name)
            if not os.path.isdir(self._at(name)):
                raise NotADirectoryError(errno.ENOTDIR, "not a folder", name)
            return Dir(None, self._at(name))
        flags = os.O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
        return Dir(os.open(name, flags, dir_fd=self.fd), self._at(name))

    def open_file(self, name: str, flags: int, mode: int = 0o600) -> int:
        """Open `name` itself, never what a link points to (OSError ELOOP then)."""
        flags |= O_NOFOLLOW | O_CLOEXEC | O_BINARY
        if self.fd is None:
            if os.path.islink(self._at(name)):
                raise OSError(errno.ELOOP, "is a symbolic link", name)
            return os.open(self._at(name), flags, mode)
        return os.open(name, flags, mode, dir_fd=self.fd)

    def readlink(self, name: str) -> str | None:
        """Where the link `name` points; None when `name` is no link (or does not exist)."""
        try:
            if self.fd is None:
                return os.readlink(self._at(name))
            return os.readlink(name, dir_fd=self.fd)
        except OSError as exc:
            if exc.errno in (errno.EINVAL, errno.ENOENT, errno.ENOTDIR):
                return None
            raise

    def lstat(self, name: str) -> os.stat_result | None:
        try:
            if self.fd is None:
                return os.lstat(self._at(name))
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def mkdir(self, name: str) -> None:
        with contextlib.suppress(FileExistsError):
            if self.fd is None:
                os.mkdir(self._at(name))
            else:
                os.mkdir(name, dir_fd=self.fd)

    def rename(self, src: str, dst: str) -> None:
        if self.fd is None:
            os.replace(self._at(src), self._at(dst))
        else:
            os.rename(src, dst, src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def unlink(self, name: str) -> None:
        if self.fd is None:
            os.unlink(self._at(name))
        else:
            os.unlink(name, dir_fd=self.fd)

    def entries(self) -> list[Listed]:
        """The folder's entries, links not followed (a link's size is its own)."""
        listed = []
        with os.scandir(self.fd if self.fd is not None else self.path) as scan:
            for entry in scan:
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue  # gone meanwhile
                mode = info.st_mode
                if stat.S_ISLNK(mode):
                    kind = "link"
                elif stat.S_ISDIR(mode):
                    kind = "dir"
                elif stat.S_ISREG(mode):
                    kind = "file"
                else:
                    kind = "other"
                listed.append(Listed(entry.name, kind, info.st_size))
        return listed


TEMP_ATTEMPTS = 8


def write_atomically(
    folder: Dir, name: str, data: bytes, mode: int, step: Callable[[str], None]
) -> None:
    """Write a temporary file in `folder`, then rename it over `name`, both in that folder.

    The temporary file is locked while it exists: a sweep of stale ones (debris.py) leaves
    a live write alone. A crash leaves the old content and, at worst, the temporary file.
    `step` is called with "temp" once the temporary file exists (not locked yet), "rename"
    before the rename: the jail's hook, where tests make things happen between two steps.
    """
    fd, tmp = _locked_temp(folder, name, step)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
            if hasattr(os, "fchmod"):
                os.fchmod(fd, mode)
            step("rename")
            folder.rename(tmp, name)
        finally:
            os.close(fd)
    except BaseException:
        with contextlib.suppress(OSError):
            folder.unlink(tmp)
        raise


def _locked_temp(folder: Dir, name: str, step: Callable[[str], None]) -> tuple[int, str]:
    """A new temporary file for `name`, open and locked; returns its descriptor and name.

    Between creating a file and locking it, a sweep (debris.py, maybe in another process)
    cannot tell it from a stale one and may remove it: a write would then rename a name that
    is gone (FileNotFoundError, seen as a flaky eval task under load). So once the lock is
    held, the file must still be there under its name, else another one is made.
    """
    for _ in range(TEMP_ATTEMPTS):
        tmp = temp_name(name)
        fd = folder.open_file(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            step("temp")
            if fcntl is None:  # Windows: no sweep removes an open file there
                return fd, tmp
            fcntl.flock(fd, fcntl.LOCK_EX)
            mine, linked = os.fstat(fd), folder.lstat(tmp)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                folder.unlink(tmp)
            raise
        if linked is not None and (linked.st_dev, linked.st_ino) == (mine.st_dev, mine.st_ino):
            return fd, tmp  # held: a sweep now sees it locked and leaves it
        os.close(fd)  # swept before we held it: its name is gone, nothing to clean
    raise FileNotFoundError(errno.ENOENT, "temporary file removed before it could be locked", name)
