"""write_file and edit_file in two steps: plan the change (and its diff), then write it.

Between the two a person may be asked to approve the diff (the "Demander avant d'écrire"
setting). The write then checks that the file still holds what the diff was computed from:
a file changed meanwhile (by the person, an editor, another turn) is not overwritten with a
change nobody saw.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass

from loki_desktop.core.ports import ToolOutcome

# summaries remember their facts: a reopened card is worded in the language of now
from loki_desktop.core.said import _, ngettext
from loki_desktop.core.tools.diffs import FileChange, compute_change, read_limit
from loki_desktop.core.tools.jail import Entry, Workspace, read_fd
from loki_desktop.core.tools.text import READ_LIMIT_BYTES, decode_text


class ChangedMeanwhile(Exception):
    """The file is no longer what the planned change was computed from."""


@dataclass(frozen=True, slots=True)
class Planned:
    """A change ready to be written: the bytes it replaces (None: no file) and the new ones."""

    raw: str
    old: bytes | None
    new: bytes
    change: FileChange

    @property
    def rel(self) -> str:
        return self.change.path


class FileWriter:
    """Plans and writes the file tools' changes, every path through the workspace jail."""

    def __init__(self, workspace: Workspace) -> None:
        self.ws = workspace

    def plan_write(self, raw: str, data: bytes) -> Planned:
        try:
            with self.ws.locate(raw) as entry:
                old = self._current(entry, raw)
                rel = entry.rel
        except FileNotFoundError:  # a parent folder is missing: made only when writing
            rel, old = self.ws.relative(self.ws.resolve(raw)), None
        return Planned(raw, old, data, compute_change(rel, old, data))

    def plan_edit(self, raw: str, old_text: str, new_text: str) -> Planned | ToolOutcome:
        """The edit replacing the one occurrence of `old_text`, or the failure to send back."""
        with self.ws.locate(raw) as entry:
            with self.ws.open_regular(entry, raw) as (fd, info):
                read = read_fd(fd, info.st_size, READ_LIMIT_BYTES + 1)
            if len(read.data) > READ_LIMIT_BYTES:
                return _fail(
                    f"{raw} is too large to edit safely; rewrite it with write_file",
                    _("{path} est trop grand pour être modifié").format(path=raw),
                )
            text = decode_text(read.data, False, entry.rel)
            count = text.count(old_text)
            if count != 1:
                where = "was not found" if count == 0 else f"matched {count} times"
                return _fail(
                    f"old_text {where} in {raw}; it must match exactly once "
                    "(copy it exactly, with more surrounding lines if needed)",
                    ngettext(
                        "texte à remplacer trouvé {n} fois",
                        "texte à remplacer trouvé {n} fois",
                        count,
                    ).format(n=count),
                )
            new = text.replace(old_text, new_text, 1).encode("utf-8")
            return Planned(raw, read.data, new, compute_change(entry.rel, read.data, new))

    def apply(self, planned: Planned) -> bool:
        """Write the planned bytes; True if the file existed. Raises ChangedMeanwhile when
        the file no longer holds what the change was computed from."""
        with self.ws.locate(planned.raw, create=True) as entry:
            if self._current(entry, planned.raw) != planned.old:
                raise ChangedMeanwhile(entry.rel)
            return self.ws.write(entry, planned.new)

    def _current(self, entry: Entry, raw: str) -> bytes | None:
        """The file's bytes (the first `read_limit()` of a big one), None when there is none."""
        if entry.name is None:
            raise IsADirectoryError(errno.EISDIR, "is a folder", entry.rel)
        if entry.folder.lstat(entry.name) is None:
            return None
        with self.ws.open_regular(entry, raw) as (fd, info):
            return read_fd(fd, info.st_size, read_limit()).data


def _fail(message: str, summary: str | None = None) -> ToolOutcome:
    """As native.fail: English for the model, the translated summary for the person."""
    return ToolOutcome(ok=False, output=f"Error: {message}", summary=summary or _("erreur"))
