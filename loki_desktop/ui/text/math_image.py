"""A drawn formula's SVG as the image a message document shows (QtSvg, at the screen's scale)."""

from __future__ import annotations

import math

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

from loki_desktop.ui.text.math_render import drawn


def formula_image(key: str, scale: float = 1.0) -> QImage | None:
    """The formula `key` drawn at `scale` device pixels a pixel (None: unknown key)."""
    formula = drawn(key)
    if formula is None:
        return None
    renderer = QSvgRenderer(QByteArray(formula.svg.encode()))
    if not renderer.isValid():
        return None
    width = max(1, math.ceil(formula.width * scale))
    height = max(1, math.ceil(formula.height * scale))
    image = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    try:
        renderer.render(painter)
    finally:
        painter.end()
    image.setDevicePixelRatio(scale)
    return image
