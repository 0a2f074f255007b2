"""Real PDF files for the attachment tests and benches, written object by object (PDF 1.4)."""

from __future__ import annotations

import io
import zlib


def text_pdf(pages: list[str], *, compress: bool = True) -> bytes:
    """A PDF whose pages show these texts in Helvetica (one line each, an empty text: a page
    with nothing written, as a scan without OCR is)."""
    streams = [_page_stream(text) for text in pages]
    return _assemble(streams, compress=compress)


def bomb_pdf(inflated_mb: int = 80) -> bytes:
    """A one-page PDF whose content stream inflates to `inflated_mb` MB from ~100 KB."""
    return _assemble([b"\x20" * (inflated_mb * 1024 * 1024)], compress=True)


def encrypted(data: bytes, password: str) -> bytes:
    """The PDF `data` encrypted with a user password (pypdf's writer)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(password, algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _page_stream(text: str) -> bytes:
    if not text:
        return b""
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return f"BT /F1 12 Tf 72 720 Td ({escaped}) Tj ET".encode("latin-1")


def _assemble(streams: list[bytes], *, compress: bool) -> bytes:
    """Catalog 1, pages 2, font 3, then a page object and its content stream per page."""
    count = len(streams)
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(count))
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    for index, stream in enumerate(streams):
        content = 5 + 2 * index
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {content} 0 R >>".encode()
        )
        body = zlib.compress(stream, 9) if compress else stream
        head = f"<< /Length {len(body)}" + (" /Filter /FlateDecode" if compress else "") + " >>"
        objects.append(head.encode() + b"\nstream\n" + body + b"\nendstream")
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, obj in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n".encode() + obj + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    out.write(
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return out.getvalue()
