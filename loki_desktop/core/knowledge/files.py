"""Which workspace files are indexed, and their passages with the line each begins on.

Indexed: files that read as text (no NUL byte in their first 8 KB) up to MAX_TEXT_BYTES, and
PDF files (their text, through pypdf) up to MAX_PDF_BYTES. Left out: what `.gitignore` files
ignore (git's own syntax, through pathspec), `.git` and other hidden folders, symbolic links
(the jail's rule: nothing is read through a link), and bigger files, which are never opened
(a 200 MB log costs one stat).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pathspec

MAX_TEXT_BYTES = 2_000_000
MAX_PDF_BYTES = 20_000_000
MAX_PDF_PAGES = 200
PASSAGE_LINES = 15
PASSAGE_CHARS = 1_200
SNIFF_BYTES = 8192
SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", ".venv", "venv"})


@dataclass(frozen=True, slots=True)
class FileState:
    path: str  # relative, forward slashes
    mtime: float
    size: int


def scan(root: Path) -> Iterator[FileState]:
    """The files of `root` that may be indexed (sizes aside), following .gitignore files."""
    specs: list[tuple[str, pathspec.GitIgnoreSpec]] = []
    for folder, dirs, names in os.walk(root, followlinks=False):
        rel_folder = os.path.relpath(folder, root).replace(os.sep, "/")
        rel_folder = "" if rel_folder == "." else rel_folder + "/"
        specs = [(base, spec) for base, spec in specs if rel_folder.startswith(base)]
        if ".gitignore" in names:
            spec = _read_gitignore(Path(folder) / ".gitignore")
            if spec is not None:
                specs.append((rel_folder, spec))
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and d not in SKIPPED_DIRS
            and not _ignored(specs, rel_folder + d + "/")
        )
        for name in sorted(names):
            rel = rel_folder + name
            if name.startswith(".") or _ignored(specs, rel):
                continue
            try:
                info = os.lstat(os.path.join(folder, name))
            except OSError:  # gone meanwhile
                continue
            if stat.S_ISREG(info.st_mode):  # lstat: a link is never a regular file
                yield FileState(rel, info.st_mtime, info.st_size)


def states_of(root: Path, paths: Iterable[str]) -> Iterator[FileState]:
    """The states of these relative paths that `scan` would give (the others are left out:
    gone, ignored, hidden, links, folders)."""
    for rel in sorted(set(paths)):
        parts = rel.split("/")
        if any(p.startswith(".") or p in SKIPPED_DIRS for p in parts):
            continue
        if _ignored_by_gitignores(root, parts):
            continue
        try:
            info = os.lstat(root / rel)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            yield FileState(rel, info.st_mtime, info.st_size)


def _ignored_by_gitignores(root: Path, parts: list[str]) -> bool:
    """Whether a .gitignore of the path's folders (root first) ignores it or a folder of it."""
    for depth in range(len(parts)):
        spec = _read_gitignore(root.joinpath(*parts[:depth], ".gitignore"))
        if spec is None:
            continue
        rest = parts[depth:]
        for end in range(1, len(rest) + 1):
            below = "/".join(rest[:end]) + ("/" if end < len(rest) else "")
            if spec.match_file(below):
                return True
    return False


def _read_gitignore(path: Path) -> pathspec.GitIgnoreSpec | None:
    if not path.is_file():
        return None
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    import pathspec  # only when a folder has a .gitignore

    return pathspec.GitIgnoreSpec.from_lines(lines)


def _ignored(specs: list[tuple[str, pathspec.GitIgnoreSpec]], rel: str) -> bool:
    return any(spec.match_file(rel[len(base) :]) for base, spec in specs)


def too_big(state: FileState) -> bool:
    limit = MAX_PDF_BYTES if state.path.lower().endswith(".pdf") else MAX_TEXT_BYTES
    return state.size > limit


def read_text(root: Path, state: FileState) -> str | None:
    """The file's text, or None when it is not text (binary, unreadable, gone, too big)."""
    if too_big(state):
        return None
    path = root / state.path
    if state.path.lower().endswith(".pdf"):
        return _pdf_text(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(MAX_TEXT_BYTES + 1)
    except OSError:
        return None
    if b"\x00" in data[:SNIFF_BYTES]:
        return None
    return data.decode("utf-8", errors="replace")


def _pdf_text(path: Path) -> str | None:
    try:
        from pypdf import PdfReader
        from pypdf.errors import PyPdfError

        reader = PdfReader(path)
        pages = [page.extract_text() or "" for page in reader.pages[:MAX_PDF_PAGES]]
    except (OSError, ValueError, KeyError, PyPdfError):
        return None
    return "\n".join(pages)


def passages(text: str) -> list[tuple[int, str]]:
    """The text cut into passages of PASSAGE_LINES lines (shorter when a line is long):
    (first line, 1-based; the passage's text). Blank passages are left out."""
    found: list[tuple[int, str]] = []
    lines = text.splitlines()
    start = 0
    while start < len(lines):
        end, size = start, 0
        while end < len(lines) and end - start < PASSAGE_LINES and size < PASSAGE_CHARS:
            size += len(lines[end]) + 1
            end += 1
        chunk = "\n".join(lines[start:end]).strip()
        if chunk:
            found.append((start + 1, chunk[: PASSAGE_CHARS * 2]))
        start = end
    return found
