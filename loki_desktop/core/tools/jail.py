"""The workspace jail: every path a tool touches is walked inside one folder, race-free.

The workspace folder is opened once. A path is then walked one component at a time from
that open folder: each sub-folder is opened relative to its parent with O_NOFOLLOW, and a
symbolic link is never followed by the system: we read it and walk its target ourselves,
refusing any target that leaves the workspace. The file itself is then opened (or written
and renamed) relative to the folder we hold. Nothing is checked by name and used by name
later, so a folder swapped for a link to the outside between two steps changes nothing.
"""

from __future__ import annotations

import errno
import os
import stat
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Protocol

from loki_desktop.core.bounded_read import NotRegularFile, check_regular
from loki_desktop.core.tools.dirfd import LINK_ERRNOS, O_NONBLOCK, Dir, write_atomically


class JailError(Exception):
    """A path was refused; the message says why, for the model."""


# Folders no tool may read or write: a repository's internals are not the agent's to edit.
FORBIDDEN_PARTS = frozenset({".git"})
# As the kernel: a chain of more links than this is a loop.
MAX_LINKS = 40
# Called between the steps of every walk and every file operation, with the step's name
# and the workspace-relative path: tests swap a component there to prove the race is lost.
Hook = Callable[[str, str], None]


class CheckpointRefused(Exception):
    """The previous state of `rel` could not be kept, so the change was not made.

    `for_model` says why in English (the tool result), `for_person` in one translated
    sentence (the card, the CLI). `allow_once()` lets the next write of `rel` go ahead
    without a checkpoint: the person chose « écrire quand même, sans retour possible »."""

    def __init__(
        self, rel: str, for_model: str, for_person: str, allow: Callable[[], None]
    ) -> None:
        super().__init__(for_model)
        self.rel = rel
        self.for_model = for_model
        self.for_person = for_person
        self._allow = allow

    def allow_once(self) -> None:
        self._allow()


class ChangeObserver(Protocol):
    """Told around each file a tool changes (core.changes keeps the previous states)."""

    def before_change(
        self, rel: str, previous: Callable[[], bytes | None], size: int, new: bytes | None
    ) -> None:
        """`rel` is about to hold `new` (None: be removed); `previous()` reads its current
        bytes (None: it does not exist) and `size` is their length (0 when absent, -1 for
        something that is not a regular file), to decide before reading. Raising stops the
        change: nothing is written."""
        ...

    def after_change(self, rel: str, data: bytes | None) -> None:
        """`rel` now holds `data` (None: it was removed)."""
        ...


def is_forbidden_part(name: str) -> bool:
    """Case-insensitively: on macOS and Windows disks `.GIT/hooks` is the real .git."""
    return name.casefold() in FORBIDDEN_PARTS


def _no_hook(step: str, rel: str) -> None:
    return None


@dataclass
class Entry:
    """Where a path leads: the folder holding it (open) and its name there.

    `name` is None when the path is a folder itself (`folder` is then that folder).
    """

    folder: Dir
    name: str | None
    rel: str  # workspace-relative, forward slashes, "." for the root


@dataclass(frozen=True, slots=True)
class ReadResult:
    data: bytes  # at most the limit asked for
    size: int  # the whole file's size when it was opened
    lines: int | None = None  # the whole file's, when asked


class _Missing(Exception):
    def __init__(self, rel: str) -> None:
        super().__init__(rel)
        self.rel = rel


class Workspace:
    """A folder that jails every file tool."""

    def __init__(
        self, root: Path | str, hook: Hook | None = None, observer: ChangeObserver | None = None
    ) -> None:
        self.root = Path(root).resolve(strict=True)
        if not self.root.is_dir():
            raise NotADirectoryError(str(self.root))
        self._given = Path(os.path.abspath(root))
        self._root_dir = Dir.open(str(self.root))
        weakref.finalize(self, self._root_dir.close)
        self.hook: Hook = hook or _no_hook
        self.observer = observer

    # --- walking ------------------------------------------------------------------------

    def resolve(self, raw: str) -> Path:
        """The real path `raw` leads to (links inside the workspace followed), for display
        and for callers that report on it. Opens nothing afterwards: use `locate`."""
        try:
            entry = self._walk(raw, create=False)
        except _Missing as missing:
            rel = missing.rel
        else:
            rel = entry.rel
            if entry.folder is not self._root_dir:
                entry.folder.close()
        return self.root if rel == "." else self.root / rel

    def relative(self, path: Path) -> str:
        """The workspace-relative form of a resolved path, with forward slashes."""
        rel = path.relative_to(self.root).as_posix()
        return rel or "."

    @contextmanager
    def locate(self, raw: str, *, create: bool = False) -> Iterator[Entry]:
        """Walk `raw`; its parent folders are made when `create` is set."""
        try:
            entry = self._walk(raw, create=create)
        except _Missing as missing:
            raise FileNotFoundError(errno.ENOENT, "no such file or folder", missing.rel) from None
        try:
            yield entry
        finally:
            if entry.folder is not self._root_dir:
                entry.folder.close()

    @contextmanager
    def open_folder(self, raw: str) -> Iterator[Entry]:
        """The folder `raw` names, open (Entry.name is None)."""
        with self.locate(raw) as entry:
            if entry.name is None:
                yield entry
                return
            self.hook("folder", entry.rel)
            try:
                child = entry.folder.child(entry.name)
            except OSError as exc:
                if exc.errno in LINK_ERRNOS:
                    raise self._swapped(raw) from None
                raise _named(exc, entry.rel) from None
            try:
                yield Entry(child, None, entry.rel)
            finally:
                child.close()

    def _walk(self, raw: str, *, create: bool) -> Entry:
        pending = self._parts(raw)[::-1]
        stack: list[Dir] = []
        names: list[str] = []
        links = made = 0
        try:
            while pending:
                name = pending.pop()
                if name in ("", "."):
                    continue
                if name == "..":
                    if not names:
                        raise self._outside(raw)
                    names.pop()
                    stack.pop().close()
                    continue
                if is_forbidden_part(name):
                    raise JailError(f"'{raw}' is inside .git, which tools may not touch")
                folder = stack[-1] if stack else self._root_dir
                rel = "/".join([*names, name])
                if all(part in ("", ".") for part in pending):  # the last component
                    self.hook("last", rel)
                    target = folder.readlink(name)
                    if target is None:
                        return self._hand_over(stack, names, name)
                    links = self._follow(raw, target, links, pending, stack, names)
                    continue
                self.hook("walk", rel)
                try:
                    child = folder.child(name)
                except FileNotFoundError:
                    if not create:
                        raise _Missing(_lexical(raw, [*names, name], pending)) from None
                    made += 1
                    if made > 1000:  # a folder that keeps vanishing as it is made
                        raise
                    folder.mkdir(name)
                    pending.append(name)
                    continue
                except OSError as exc:
                    if exc.errno not in (*LINK_ERRNOS, errno.ENOTDIR):
                        raise _named(exc, rel) from None
                    target = folder.readlink(name)
                    if target is None:
                        raise NotADirectoryError(errno.ENOTDIR, "not a folder", rel) from None
                    links = self._follow(raw, target, links, pending, stack, names)
                    continue
                stack.append(child)
                names.append(name)
            return self._hand_over(stack, names, None)
        except BaseException:
            for opened in stack:
                opened.close()
            raise

    def _hand_over(self, stack: list[Dir], names: list[str], name: str | None) -> Entry:
        """The Entry holds the innermost folder; the ones above it are closed."""
        for opened in stack[:-1]:
            opened.close()
        folder = stack[-1] if stack else self._root_dir
        rel = "/".join([*names, name] if name is not None else names) or "."
        return Entry(folder, name, rel)

    def _follow(
        self,
        raw: str,
        target: str,
        links: int,
        pending: list[str],
        stack: list[Dir],
        names: list[str],
    ) -> int:
        """Walk a link's target ourselves: relative to the link's folder, or from the root."""
        links += 1
        if links > MAX_LINKS:
            raise JailError(f"'{raw}' goes through too many symbolic links (a loop?)")
        path = PurePath(target)
        if path.is_absolute():
            inside = _inside(path, (self.root, self._given))
            if inside is None:
                raise self._outside(raw)
            for opened in stack:
                opened.close()
            stack.clear()
            names.clear()
            path = inside
        pending.extend(reversed(path.parts))
        return links

    def _parts(self, raw: str) -> list[str]:
        if "\x00" in raw:
            raise JailError("the path contains a NUL byte")
        if not raw.strip():
            raise JailError("the path is empty")
        path = PurePath(raw)
        if path.is_absolute():
            inside = _inside(path, (self.root, self._given))
            if inside is None:
                raise self._outside(raw)
            path = inside
        if any(is_forbidden_part(part) for part in path.parts):  # before making any folder
            raise JailError(f"'{raw}' is inside .git, which tools may not touch")
        return list(path.parts)

    def _outside(self, raw: str) -> JailError:
        return JailError(f"'{raw}' is outside the workspace ({self.root})")

    @staticmethod
    def _swapped(raw: str) -> JailError:
        return JailError(f"'{raw}' was replaced by a symbolic link while it was opened")

    # --- reading and writing ------------------------------------------------------------------

    @contextmanager
    def open_regular(self, entry: Entry, raw: str) -> Iterator[tuple[int, os.stat_result]]:
        """The file of `entry`, open for reading and checked on the descriptor itself."""
        if entry.name is None:
            raise IsADirectoryError(errno.EISDIR, "is a folder", entry.rel)
        self.hook("open", entry.rel)
        try:
            fd = entry.folder.open_file(entry.name, os.O_RDONLY | O_NONBLOCK)
        except OSError as exc:
            if exc.errno in LINK_ERRNOS:
                raise self._swapped(raw) from None
            raise _named(exc, entry.rel) from None
        try:
            # the same check as every read of a path someone gives (core.bounded_read)
            info = check_regular(fd, entry.rel)
            yield fd, info
        finally:
            os.close(fd)

    def read(self, raw: str, limit: int, *, count_lines: bool = False) -> tuple[ReadResult, str]:
        """At most `limit` bytes of the file `raw`, and its workspace-relative path."""
        with self.locate(raw) as entry, self.open_regular(entry, raw) as (fd, info):
            result = read_fd(fd, info.st_size, limit, count_lines=count_lines)
            return result, entry.rel

    def read_for_check(self, path: Path, limit: int) -> bytes:
        """A checker's reader (core.checks.source.Reader): the jail's read, its refusals as
        PermissionError, since a checker knows nothing of jails."""
        try:
            return self.read(str(path), limit)[0].data
        except JailError as exc:
            raise PermissionError(errno.EACCES, str(exc), str(path)) from None

    def write(self, entry: Entry, data: bytes) -> bool:
        """Replace the file of `entry` with `data` (atomically); True if it existed."""
        if entry.name is None:
            raise IsADirectoryError(errno.EISDIR, "is a folder", entry.rel)
        name, rel = entry.name, entry.rel
        before = entry.folder.lstat(name)
        if before is not None and stat.S_ISDIR(before.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder", rel)
        # keep the bits of the file we replace (a script stays executable); 0644 otherwise
        regular = before is not None and stat.S_ISREG(before.st_mode)
        mode = stat.S_IMODE(before.st_mode) if before is not None and regular else 0o644
        if self.observer is not None:
            # -1: something that is no regular file (a pipe) is replaced, and cannot be kept
            size = before.st_size if regular and before else (0 if before is None else -1)
            self.observer.before_change(rel, lambda: self._current(entry, before), size, data)
        self.hook("write", rel)
        try:
            write_atomically(entry.folder, name, data, mode, lambda step: self.hook(step, rel))
        except OSError as exc:
            raise _named(exc, rel) from None
        if self.observer is not None:
            self.observer.after_change(rel, data)
        return before is not None

    def remove(self, entry: Entry) -> None:
        """Remove the file of `entry` (a missing one is no error)."""
        if entry.name is None:
            raise IsADirectoryError(errno.EISDIR, "is a folder", entry.rel)
        before = entry.folder.lstat(entry.name)
        if before is None:
            return
        if stat.S_ISDIR(before.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder", entry.rel)
        if self.observer is not None:
            self.observer.before_change(
                entry.rel, lambda: self._current(entry, before), before.st_size, None
            )
        try:
            entry.folder.unlink(entry.name)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise _named(exc, entry.rel) from None
        if self.observer is not None:
            self.observer.after_change(entry.rel, None)

    def _current(self, entry: Entry, info: os.stat_result | None) -> bytes | None:
        """The whole current content of `entry`'s file (None when there is none)."""
        if info is None or entry.name is None:
            return None
        with self.open_regular(entry, entry.rel) as (fd, opened):
            return read_fd(fd, opened.st_size, 1 << 62).data


# Counting the lines of a file bigger than this would take too long: the count says "at least".
LINE_COUNT_LIMIT = 64_000_000


def read_fd(fd: int, size: int, limit: int, *, count_lines: bool = False) -> ReadResult:
    chunks: list[bytes] = []
    kept = 0
    while kept < limit:
        block = os.read(fd, min(1 << 20, limit - kept))
        if not block:
            break
        chunks.append(block)
        kept += len(block)
    data = b"".join(chunks)
    if not count_lines:
        return ReadResult(data, size)
    lines = data.count(b"\n")
    seen = len(data)
    last = data[-1:]
    while seen < LINE_COUNT_LIMIT:
        block = os.read(fd, 1 << 20)
        if not block:
            break
        lines += block.count(b"\n")
        seen += len(block)
        last = block[-1:]
    if last and last != b"\n":
        lines += 1  # a last line without its newline
    return ReadResult(data, size, lines)


def _inside(path: PurePath, roots: tuple[Path, ...]) -> PurePath | None:
    for root in roots:
        if path.is_relative_to(root):
            return path.relative_to(root)
    return None


def _lexical(raw: str, names: list[str], pending: list[str]) -> str:
    """The rest of a path under a folder that does not exist: no links can be there."""
    parts = list(names)
    for name in reversed(pending):
        if name in ("", "."):
            continue
        if name == "..":
            if not parts:
                raise JailError(f"'{raw}' is outside the workspace")
            parts.pop()
        elif is_forbidden_part(name):
            raise JailError(f"'{raw}' is inside .git, which tools may not touch")
        else:
            parts.append(name)
    return "/".join(parts) or "."


def _named(exc: OSError, rel: str) -> OSError:
    """The same error, naming the workspace path rather than the last component."""
    if isinstance(exc, NotRegularFile):
        return exc
    return type(exc)(exc.errno, exc.strerror, rel)
