"""Loading the files a person attaches: each checked and read, or one sentence why not."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from loki_desktop.core.answer_stats import number
from loki_desktop.core.attachments.model import AttachmentRefused, FileAttachment, human_size
from loki_desktop.core.attachments.pdf import is_pdf, read_pdf
from loki_desktop.core.attachments.text import read_text
from loki_desktop.core.given_files import GivenFileError, GivenFileTooBig, read_given_file
from loki_desktop.core.i18n import _

# A text or code file: 1 MB is about 250,000 tokens, past any local model's context.
MAX_TEXT_BYTES = 1024 * 1024
# A PDF carries fonts and pictures besides its text.
MAX_PDF_BYTES = 50 * 1024 * 1024


def load_attachment(path: Path) -> FileAttachment:
    """Read the file at `path` for the model (text or PDF, told by its content); raises
    AttachmentRefused."""
    name = path.name
    try:
        data = read_given_file(path, MAX_PDF_BYTES)
    except GivenFileTooBig as exc:
        raise AttachmentRefused(_too_big(name, exc.size, MAX_PDF_BYTES)) from None
    except GivenFileError as exc:
        raise AttachmentRefused(str(exc)) from None
    if is_pdf(data[:1024]):
        return read_pdf(name, data)
    from loki_desktop.core.images import sniff_format  # Pillow: only once a file is read

    if sniff_format(data[:16]) is not None:
        raise AttachmentRefused(
            _("« {name} » est une image : joignez-la comme image.").format(name=name)
        )
    if len(data) > MAX_TEXT_BYTES:
        raise AttachmentRefused(_too_big(name, len(data), MAX_TEXT_BYTES))
    return read_text(name, data)


async def load_attachments(paths: Sequence[Path]) -> tuple[FileAttachment, ...]:
    """The files, read in a worker thread (a long PDF takes seconds); raises
    AttachmentRefused for the first that cannot be attached, and then none is."""
    return await asyncio.to_thread(lambda: tuple(load_attachment(path) for path in paths))


@dataclass(frozen=True, slots=True)
class Overflow:
    """The attachments do not fit in the context left: by how much."""

    needed: int  # tokens the files would take
    room: int  # tokens left for them

    def message(self) -> str:
        return _(
            "Les fichiers joints prennent environ {needed} jetons, mais il en reste environ "
            "{room} dans le contexte du modèle."
        ).format(needed=number(self.needed), room=number(self.room))


def fit_files(
    files: tuple[FileAttachment, ...], room: int
) -> tuple[tuple[FileAttachment, ...], Overflow | None]:
    """The files as they fit in `room` tokens: each whole while they fit, then the first
    part of the one that does not and nothing of the rest (with the overflow said)."""
    needed = sum(f.tokens() for f in files)
    if needed <= room:
        return files, None
    kept: list[FileAttachment] = []
    left = room
    for file in files:
        part = file.first_part(left)
        if part.text:
            kept.append(part)
        if part.cut:
            break
        left -= part.tokens()
    return tuple(kept), Overflow(needed, max(0, room))


def _too_big(name: str, size: int, limit: int) -> str:
    return _("« {name} » pèse {size} : Loki joint au plus {limit} par fichier de ce type.").format(
        name=name, size=human_size(size), limit=human_size(limit)
    )
