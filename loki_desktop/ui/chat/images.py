"""Image thumbnails: in the composer (removable), in a sent message, on a tool card."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QSize, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QImage, QImageReader, QImageWriter, QMouseEvent, QPixmap
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from loki_desktop.core.i18n import _
from loki_desktop.core.image_attachment import ImageAttachment

THUMB_PX = 88


def thumbnail(data: bytes, size: int = THUMB_PX) -> QPixmap | None:
    """A pixmap at most `size` px on its long side, decoded at that size when the format
    allows (JPEG), so a large photo is never fully decoded for a thumbnail. None if unreadable."""
    buffer = QBuffer()
    buffer.setData(QByteArray(data))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer)
    full = reader.size()
    if full.isValid() and (full.width() > size or full.height() > size):
        reader.setScaledSize(full.scaled(size, size, Qt.AspectRatioMode.KeepAspectRatio))
    image = reader.read()
    if image.isNull():
        return None
    if image.width() > size or image.height() > size:
        image = image.scaled(
            size,
            size,
            Qt.AspectRatioMode.KeepAspectRatio,
            Qt.TransformationMode.SmoothTransformation,
        )
    return QPixmap.fromImage(image)


def png_bytes(image: QImage) -> bytes:
    """An image from the clipboard, encoded as PNG (what the core's checks then read)."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    QImageWriter(buffer, QByteArray(b"PNG")).write(image)
    return bytes(data.data())


class Thumbnail(QFrame):
    """One image, small. A click opens the stored file (when there is one); the composer's
    thumbnails carry a × that removes them."""

    remove_requested = Signal()

    def __init__(
        self,
        data: bytes,
        name: str,
        *,
        path: Path | None = None,
        removable: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("Thumbnail")
        self.name = name
        self.path = path
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.picture = QLabel()
        self.picture.setObjectName("ThumbnailPicture")
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.picture.setFixedSize(QSize(THUMB_PX + 6, THUMB_PX + 6))
        pixmap = thumbnail(data)
        if pixmap is not None:
            self.picture.setPixmap(pixmap)
        else:
            self.picture.setText(_("image\nillisible"))
        layout.addWidget(self.picture)
        self.setToolTip(name)
        if path is not None:
            self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.remove_button: QToolButton | None = None
        if removable:
            self.remove_button = QToolButton(self)
            self.remove_button.setObjectName("ThumbnailRemove")
            self.remove_button.setText("×")
            self.remove_button.setToolTip(_("Retirer {name}").format(name=name))
            self.remove_button.clicked.connect(self.remove_requested)
            self.remove_button.setFixedSize(QSize(20, 20))
            self.remove_button.move(THUMB_PX + 6 - 23, 3)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self.path is not None and event.button() == Qt.MouseButton.LeftButton:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.path)))
        super().mouseReleaseEvent(event)


class ThumbnailRow(QWidget):
    """Thumbnails side by side, left-aligned."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(8)
        self._layout.addStretch(1)

    def add(self, thumb: Thumbnail) -> Thumbnail:
        self._layout.insertWidget(self._layout.count() - 1, thumb)
        return thumb

    def thumbnails(self) -> list[Thumbnail]:
        found = []
        for index in range(self._layout.count()):
            item = self._layout.itemAt(index)
            widget = item.widget() if item is not None else None
            if isinstance(widget, Thumbnail):
                found.append(widget)
        return found

    def remove(self, thumb: Thumbnail) -> None:
        self._layout.removeWidget(thumb)
        thumb.deleteLater()


def attachment_thumbnail(image: ImageAttachment, *, removable: bool = False) -> Thumbnail:
    """The thumbnail of an attachment: held in memory (just attached) or stored as a file."""
    try:
        data = image.content()
    except OSError:
        data = b""  # deleted by hand since: the frame says the image is unreadable
    name = image.name or image.mime_type
    return Thumbnail(data, name, path=image.path, removable=removable)


def thumbnail_row(images: Sequence[ImageAttachment]) -> ThumbnailRow:
    row = ThumbnailRow()
    for image in images:
        row.add(attachment_thumbnail(image))
    return row
