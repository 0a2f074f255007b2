"""Images for vision models: checked by content, downscaled, ready to send (Pillow).

Accepted: PNG, JPEG, WebP and GIF (its first frame), up to MAX_BYTES. An image larger
than MAX_SIDE on its long side is downscaled (vision encoders work at about that size
and a bigger one only costs tokens and time). WebP and GIF are sent as PNG: not every
image decoder behind an Ollama-protocol server reads them. Every refusal is an
ImageRefused whose message is one sentence for a human.
"""

from __future__ import annotations

import base64
import binascii
import io
import warnings
from pathlib import Path

from PIL import Image, ImageOps, UnidentifiedImageError

from loki_desktop.core.bounded_read import FileTooBig, NotRegularFile, read_bounded
from loki_desktop.core.i18n import _
from loki_desktop.core.image_attachment import ImageAttachment

MAX_BYTES = 20 * 1024 * 1024
MAX_SIDE = 1568
# What a decoder may take in pixels: well past any photo, short of a decompression bomb.
MAX_PIXELS = 60_000_000
_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp", "GIF": "image/gif"}
_JPEG_QUALITY = 90
_ORIENTATION = 0x0112  # the EXIF tag


class ImageRefused(ValueError):
    """The file is not an image Loki can send; the message says why, in one sentence."""


def sniff_format(head: bytes) -> str | None:
    """The image format of these first bytes (PNG, JPEG, WEBP, GIF), whatever the file name."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if head.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "GIF"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WEBP"
    return None


def load_image(path: Path) -> ImageAttachment:
    """Read and prepare the image file at `path`; raises ImageRefused."""
    name = path.name
    try:
        data = read_bounded(path, MAX_BYTES)
    except FileTooBig as exc:
        raise ImageRefused(_too_big(name, exc.size, at_least=True)) from None
    except IsADirectoryError:
        raise ImageRefused(
            _("« {name} » est un dossier, pas une image.").format(name=name)
        ) from None
    except NotRegularFile:
        raise ImageRefused(
            _(
                "« {name} » n'est pas un fichier ordinaire (un tube, une socket ou un "
                "périphérique) : ce n'est pas une image."
            ).format(name=name)
        ) from None
    except OSError as exc:
        raise ImageRefused(
            _("Impossible de lire l'image « {name} » : {error}.").format(
                name=name, error=exc.strerror or type(exc).__name__
            )
        ) from None
    return prepare_image(data, name)


def image_from_base64(data: str, name: str = "") -> ImageAttachment:
    """Prepare an image given as base64 (an MCP tool result); raises ImageRefused."""
    try:
        raw = base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        raise ImageRefused(_("L'image « {name} » est illisible.").format(name=name)) from None
    return prepare_image(raw, name)


def prepare_image(data: bytes, name: str = "") -> ImageAttachment:
    """Check `data` is a PNG/JPEG/WebP/GIF image and downscale it; raises ImageRefused."""
    if len(data) > MAX_BYTES:
        raise ImageRefused(_too_big(name, len(data)))
    kind = sniff_format(data[:16])
    if kind is None:
        raise ImageRefused(
            _(
                "« {name} » n'est pas une image PNG, JPEG, WebP ou GIF : Loki ne peut pas "
                "l'envoyer au modèle."
            ).format(name=name or _("le fichier"))
        )
    try:
        with warnings.catch_warnings():
            # a huge canvas is refused below, not warned about
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=[kind])
            if image.width * image.height > MAX_PIXELS:
                raise ImageRefused(
                    _("L'image « {name} » est trop grande ({w} × {h} pixels).").format(
                        name=name, w=image.width, h=image.height
                    )
                )
            image.load()
    except ImageRefused:
        raise
    except Image.DecompressionBombError:  # so many pixels that Pillow will not open it
        raise ImageRefused(
            _("L'image « {name} » est trop grande (plus de {n} millions de pixels).").format(
                name=name, n=MAX_PIXELS // 1_000_000
            )
        ) from None
    except (UnidentifiedImageError, OSError, ValueError):
        raise ImageRefused(
            _("L'image « {name} » est abîmée ou illisible.").format(name=name)
        ) from None
    return _fit(image, data, kind, name)


def _fit(image: Image.Image, data: bytes, kind: str, name: str) -> ImageAttachment:
    """Downscale and re-encode only when needed (the original bytes otherwise)."""
    # a camera's "rotate me" tag: not every decoder behind a server reads it
    turned = kind == "JPEG" and image.getexif().get(_ORIENTATION, 1) != 1
    rotated = ImageOps.exif_transpose(image) if turned else image
    needs_resize = max(rotated.width, rotated.height) > MAX_SIDE
    if kind in ("PNG", "JPEG") and not needs_resize and rotated is image:
        return ImageAttachment(_FORMATS[kind], image.width, image.height, data=data, name=name)
    if needs_resize:
        rotated = rotated.copy()
        rotated.thumbnail((MAX_SIDE, MAX_SIDE), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    if kind == "JPEG":
        rotated.convert("RGB").save(out, "JPEG", quality=_JPEG_QUALITY)
        mime = "image/jpeg"
    else:
        if rotated.mode not in ("RGB", "RGBA", "L", "LA"):
            rotated = rotated.convert("RGBA")
        rotated.save(out, "PNG", optimize=False)
        mime = "image/png"
    return ImageAttachment(mime, rotated.width, rotated.height, data=out.getvalue(), name=name)


def _too_big(name: str, size: int, *, at_least: bool = False) -> str:
    if at_least:  # reading stopped one byte past the limit: its whole size is unknown
        return _(
            "L'image « {name} » pèse plus de {limit} Mo : Loki accepte au plus {limit} Mo "
            "par image."
        ).format(name=name, limit=MAX_BYTES // 1024 // 1024)
    return _(
        "L'image « {name} » pèse {mb:.1f} Mo : Loki accepte au plus {limit} Mo par image."
    ).format(name=name, mb=size / 1024 / 1024, limit=MAX_BYTES // 1024 // 1024)
