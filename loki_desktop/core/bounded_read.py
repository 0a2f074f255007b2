"""The one way to read a file a person or a repository names: a regular file, a size limit.

A path given by someone (an image, settings.json, a file to import, a skill, a file the agent
reads) can lead anywhere: `/dev/zero` (endless bytes, and `st_size` says 0), a FIFO (opening
it waits for a writer forever), a socket, a folder, a loop of symbolic links, a log that
grows while it is read. So, before a single byte is read: the file is opened non-blocking,
checked on the descriptor itself (`fstat` after `open`: a path swapped meanwhile is caught),
refused unless it is a regular file, then at most `limit + 1` bytes are read: one byte past
the limit is enough to know it is too big, whatever the size said.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # absent on Windows, where FIFOs are no files
_OPEN_FLAGS = os.O_RDONLY | O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
CHUNK = 1 << 20


class NotRegularFile(OSError):
    """A pipe, a socket or a device: reading it may wait forever, or never end."""


class FileTooBig(OSError):
    """The file holds more than the limit (`size`: what was seen, at least limit + 1)."""

    def __init__(self, path: str, limit: int, size: int) -> None:
        super().__init__(errno.EFBIG, "file too big", path)
        self.limit = limit
        self.size = size


def read_bounded(path: Path | str, limit: int) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them.

    Raises FileTooBig past the limit, IsADirectoryError, NotRegularFile, FileNotFoundError,
    and OSError for the rest (ELOOP for a loop of links, ENXIO for a socket)."""
    fd = open_regular(path)
    try:
        return read_fd_bounded(fd, limit, str(path))
    finally:
        os.close(fd)


def open_regular(path: Path | str, dir_fd: int | None = None, flags: int = 0) -> int:
    """A descriptor of the regular file at `path` (relative to `dir_fd` if given), open
    for reading without waiting; raises as `read_bounded`."""
    fd = os.open(path, _OPEN_FLAGS | flags, dir_fd=dir_fd)
    try:
        check_regular(fd, str(path))
    except BaseException:
        os.close(fd)
        raise
    return fd


def check_regular(fd: int, name: str) -> os.stat_result:
    """The descriptor's own status, when it is a regular file; raises otherwise."""
    info = os.fstat(fd)
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, "is a folder", name)
    if not stat.S_ISREG(info.st_mode):
        raise NotRegularFile(errno.EINVAL, "not a regular file", name)
    return info


def read_fd_bounded(fd: int, limit: int, name: str) -> bytes:
    """At most `limit` bytes from `fd`; FileTooBig when there is one more."""
    chunks: list[bytes] = []
    kept = 0
    while kept <= limit:
        try:
            block = os.read(fd, min(CHUNK, limit + 1 - kept))
        except BlockingIOError:  # only a non-regular file can say "not yet"
            raise NotRegularFile(errno.EINVAL, "not a regular file", name) from None
        if not block:
            break
        chunks.append(block)
        kept += len(block)
    if kept > limit:
        raise FileTooBig(name, limit, kept)
    return b"".join(chunks)
