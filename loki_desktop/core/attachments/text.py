"""Text and code files: the encoding detected (charset-normalizer), binary files refused."""

from __future__ import annotations

from loki_desktop.core.attachments.model import AttachmentRefused, FileAttachment
from loki_desktop.core.i18n import _

# Byte-order marks of the encodings that legitimately hold NUL bytes (UTF-16, UTF-32).
_WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")
# Control characters besides tab, newline, form feed and carriage return: a text has
# almost none; a binary file decoded by force has many.
_CONTROL = frozenset(chr(c) for c in range(32)) - {"\t", "\n", "\x0c", "\r"}
_MAX_CONTROL_SHARE = 0.01
_WESTERN = ("cp1252", "iso8859_15", "latin_1")
_TIE_CHAOS = 10.0  # percentage points of charset-normalizer's "chaos"


def read_text(name: str, data: bytes) -> FileAttachment:
    """The file's text, in whatever encoding it is written; raises AttachmentRefused."""
    text, encoding = _decode(name, data)
    text = text.removeprefix("\ufeff")
    sample = text[:65_536]
    if sample and sum(ch in _CONTROL for ch in sample) / len(sample) > _MAX_CONTROL_SHARE:
        raise AttachmentRefused(_binary(name))
    return FileAttachment(name, len(data), "text", text, len(text), encoding=encoding)


def _decode(name: str, data: bytes) -> tuple[str, str]:
    try:
        return data.decode("utf-8"), "utf-8"  # most files: no detection needed
    except UnicodeDecodeError:
        pass
    if b"\x00" in data[:8192] and not data.startswith(_WIDE_BOMS):
        raise AttachmentRefused(_binary(name))
    from charset_normalizer import from_bytes  # only for a file that is not UTF-8

    matches = list(from_bytes(data))
    if not matches:
        raise AttachmentRefused(_binary(name))
    # On a short Western text several single-byte encodings tie, and the detector may pick a
    # Baltic or Central European one (measured: cp1257 for French); Loki's people write
    # French and English, so the Western one wins when it reads almost as cleanly.
    least = min(m.percent_chaos for m in matches)
    for match in matches:
        if match.encoding in _WESTERN and match.percent_chaos <= least + _TIE_CHAOS:
            return str(match), match.encoding
    best = min(matches, key=lambda m: m.percent_chaos)
    return str(best), best.encoding


def _binary(name: str) -> str:
    return _(
        "« {name} » n'est pas un fichier texte (son contenu est binaire) : Loki ne peut pas "
        "le lire pour le modèle."
    ).format(name=name)
