"""An attached file as a value: its name, size and text, and how the model reads it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from loki_desktop.core.answer_stats import number
from loki_desktop.core.i18n import _
from loki_desktop.core.tokens import estimate_tokens

AttachmentKind = Literal["text", "pdf"]


class AttachmentRefused(ValueError):
    """The file cannot be attached; the message says why, in one sentence."""


@dataclass(frozen=True, slots=True)
class FileAttachment:
    """A text or PDF file read for the model.

    `size` is the file's size in bytes (the chip shows it), `text` what the model reads
    (decoded from `encoding`, or extracted from `pages` PDF pages). `total_chars` is the
    length of the whole text: less is in `text` when only its first part is sent.
    """

    name: str
    size: int
    kind: AttachmentKind
    text: str
    total_chars: int
    encoding: str = ""
    pages: int = 0

    @property
    def cut(self) -> bool:
        return len(self.text) < self.total_chars

    def tokens(self) -> int:
        """What the file costs the model, estimated (core.tokens) with its wrapping."""
        return estimate_tokens(self.model_block())

    def first_part(self, tokens: int) -> FileAttachment:
        """The file cut to its first part, about `tokens` tokens (at a line end if one is
        near)."""
        if tokens <= 0:
            return replace(self, text="")
        whole = self.tokens()
        if whole <= tokens:
            return self
        keep = int(len(self.text) * tokens / whole)
        while keep > 0 and estimate_tokens(self.text[:keep]) > tokens:
            keep = int(keep * 0.9)
        line_end = self.text.rfind("\n", 0, keep)
        if line_end > keep * 0.8:
            keep = line_end + 1
        return replace(self, text=self.text[:keep])

    def model_block(self) -> str:
        """The file as the model reads it, after the person's words (model-facing)."""
        part = (
            f' part="first {len(self.text)} of {self.total_chars} characters"' if self.cut else ""
        )
        pages = f' pages="{self.pages}"' if self.kind == "pdf" else ""
        return f'<file name="{_quoted(self.name)}"{pages}{part}>\n{self.text}\n</file>'


def message_text(said: str, files: tuple[FileAttachment, ...]) -> str:
    """The user message the model is sent and the history keeps: the person's words, then
    each file with its name."""
    if not files:
        return said
    blocks = "\n\n".join(f.model_block() for f in files)
    return f"{said}\n\n{blocks}" if said else blocks


def human_size(size: int) -> str:
    """A file size as a chip shows it ("12 Ko", "3,4 Mo")."""
    if size < 1024:
        return _("{n} octets").format(n=size)
    if size < 1024 * 1024:
        return _("{n} Ko").format(n=round(size / 1024))
    return _("{n} Mo").format(n=number(size / 1024 / 1024, 1))


def _quoted(name: str) -> str:
    return name.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
