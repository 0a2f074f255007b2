"""Render the app icon (resources/loki.svg) to the PNG sizes, .ico and .icns.

The SVG the window and the tray use is the single source. Run this after changing it:

    .venv/bin/python packaging/render_icons.py

It writes the freedesktop hicolor PNGs into the package (so a wheel carries them and
`loki-desktop --install-desktop-entry` can install them) and the Windows .ico and macOS .icns
the bundle build uses into packaging/icons/. Rendering is done by Qt's QSvgRenderer, offscreen.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from loki_desktop.desktop_integration import (  # noqa: E402
    ICON_NAME,
    ICON_SIZES,
    RESOURCES_DIR,
    png_icon_relpath,
)

SVG = RESOURCES_DIR / "loki.svg"
BUNDLE_ICONS = REPO / "packaging" / "icons"

# Windows reads PNG-compressed entries in .ico since Vista; 256 is the largest it shows.
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# .icns entry types holding PNG data, by pixel size (ic10 is 512 at 2x).
ICNS_TYPES = (
    (b"icp4", 16),
    (b"icp5", 32),
    (b"icp6", 64),
    (b"ic07", 128),
    (b"ic08", 256),
    (b"ic09", 512),
    (b"ic10", 1024),
)


def render_png(svg: Path, size: int) -> bytes:
    """The SVG drawn on a transparent size x size square, as PNG bytes."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    _app = QGuiApplication.instance() or QGuiApplication([])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"not a valid SVG: {svg}")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """A Windows .ico whose entries are PNG images."""
    header = struct.pack("<HHH", 0, 1, len(pngs))
    directory = b""
    offset = len(header) + 16 * len(pngs)
    for size, data in pngs.items():
        side = 0 if size >= 256 else size  # 0 means 256 in an ICONDIRENTRY
        directory += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(data), offset)
        offset += len(data)
    return header + directory + b"".join(pngs.values())


def icns_bytes(pngs: dict[bytes, bytes]) -> bytes:
    """A macOS .icns whose entries are PNG images."""
    body = b"".join(kind + struct.pack(">I", len(data) + 8) + data for kind, data in pngs.items())
    return b"icns" + struct.pack(">I", len(body) + 8) + body


def main() -> int:
    written: list[Path] = []
    for size in ICON_SIZES:
        target = RESOURCES_DIR / png_icon_relpath(size)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(render_png(SVG, size))
        written.append(target)
    BUNDLE_ICONS.mkdir(parents=True, exist_ok=True)
    ico = BUNDLE_ICONS / "loki-desktop.ico"
    ico.write_bytes(ico_bytes({size: render_png(SVG, size) for size in ICO_SIZES}))
    icns = BUNDLE_ICONS / "loki-desktop.icns"
    icns.write_bytes(icns_bytes({kind: render_png(SVG, size) for kind, size in ICNS_TYPES}))
    written += [ico, icns]
    for path in written:
        print(f"{path.relative_to(REPO)}  {path.stat().st_size} bytes")
    print(f"icon name: {ICON_NAME}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
