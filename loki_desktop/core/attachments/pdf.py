"""PDF files: their text extracted with pypdf; encrypted, broken, bomb and scanned PDFs said."""

from __future__ import annotations

import io
import logging

from loki_desktop.core.attachments.model import AttachmentRefused, FileAttachment
from loki_desktop.core.i18n import _

# Past these the rest of a PDF is not read: far beyond what a local model's context takes.
MAX_PAGES = 2_000
MAX_CHARS = 4_000_000


def is_pdf(head: bytes) -> bool:
    """A PDF by its content (the header may follow a little junk, as readers allow)."""
    return b"%PDF-" in head[:1024]


def read_pdf(name: str, data: bytes) -> FileAttachment:
    """The PDF's text, page after page; raises AttachmentRefused with one sentence."""
    from pypdf import PdfReader  # only when a PDF is attached
    from pypdf.errors import FileNotDecryptedError, LimitReachedError

    # pypdf logs every repaired oddity of a damaged file; a refusal below says what matters
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise AttachmentRefused(_locked(name))
        pages, text = _extract(reader)
    except AttachmentRefused:
        raise
    except FileNotDecryptedError:
        raise AttachmentRefused(_locked(name)) from None
    except LimitReachedError:
        raise AttachmentRefused(
            _(
                "« {name} » contient des données qui se décompressent démesurément (une bombe "
                "de décompression ?) : Loki ne l'ouvre pas."
            ).format(name=name)
        ) from None
    except Exception:  # a damaged PDF fails anywhere inside pypdf (PdfReadError and others)
        raise AttachmentRefused(
            _("« {name} » est un PDF abîmé ou illisible.").format(name=name)
        ) from None
    if not text.strip():
        raise AttachmentRefused(
            _(
                "« {name} » ne contient pas de texte (un PDF scanné ?) : il faudrait d'abord "
                "le passer à la reconnaissance de caractères."
            ).format(name=name)
        )
    return FileAttachment(name, len(data), "pdf", text, len(text), pages=pages)


def _extract(reader: object) -> tuple[int, str]:
    """The pages' texts, one after the other, with a form feed between pages."""
    pieces: list[str] = []
    count = 0
    total = 0
    for page in reader.pages[:MAX_PAGES]:  # type: ignore[attr-defined]
        piece = page.extract_text() or ""
        pieces.append(piece)
        count += 1
        total += len(piece)
        if total >= MAX_CHARS:
            break
    return count, "\n\f".join(pieces)


def _locked(name: str) -> str:
    return _(
        "« {name} » est protégé par un mot de passe : ouvrez-le et enregistrez-le sans "
        "protection pour le joindre."
    ).format(name=name)
