"""The images attached to the next message: checked by the core, shown as removable thumbnails.

One way in for the three gestures: the attach button gives paths, a drop and a paste give
Qt mime data (local files, or the bytes of an image copied from a browser or a
screenshot tool). Every image is read and downscaled by `core.images` in a worker
thread, so a 20 MB photo never freezes the window, and refused with the core's sentence.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QMimeData, Signal
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QVBoxLayout, QWidget

from loki_desktop.core.i18n import _
from loki_desktop.core.image_attachment import ImageAttachment
from loki_desktop.ui.chat.images import ThumbnailRow, attachment_thumbnail, png_bytes
from loki_desktop.ui.qt_helpers import OwnedTasks, label

# Image formats a drop or paste may carry as bytes, tried in this order.
IMAGE_MIME_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")
IMAGE_FILTER = "*.png *.jpg *.jpeg *.webp *.gif"

Loader = Callable[[], ImageAttachment]


class Attachments(QWidget):
    """Thumbnails of what will go with the next message, and why an image was refused."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Attachments")
        self.tasks = OwnedTasks()
        self.images: list[ImageAttachment] = []
        self.refusal = ""  # why a model cannot take images (None of them are read then)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.row = ThumbnailRow()
        self.row.hide()
        layout.addWidget(self.row)
        self.problem = label("", "AttachError", wrap=True)
        self.problem.hide()
        layout.addWidget(self.problem)

    # --- ways in ------------------------------------------------------------------

    @staticmethod
    def offers_images(mime: QMimeData) -> bool:
        """Local files or image bytes: what a drop or a paste hands to `attach_mime`."""
        if mime.hasImage() or any(mime.hasFormat(kind) for kind in IMAGE_MIME_TYPES):
            return True
        return mime.hasUrls() and any(url.isLocalFile() for url in mime.urls())

    def attach_paths(self, paths: Sequence[str | Path]) -> asyncio.Task[None]:
        """Files chosen with the button (or dropped)."""
        return self._load([_file_loader(Path(path)) for path in paths])

    def attach_mime(self, mime: QMimeData) -> asyncio.Task[None]:
        """What a drop or a paste carries: its local files, else the image it holds."""
        files = [url.toLocalFile() for url in mime.urls() if url.isLocalFile()]
        if files:
            return self.attach_paths(files)
        for kind in IMAGE_MIME_TYPES:
            if mime.hasFormat(kind):
                data = bytes(mime.data(kind).data())
                return self._load([_bytes_loader(data, self._pasted_name())])
        image = mime.imageData()
        if isinstance(image, QImage) and not image.isNull():
            return self._load([_qimage_loader(QImage(image), self._pasted_name())])
        return self._load([])

    # --- the list -------------------------------------------------------------------

    def set_refusal(self, refusal: str) -> None:
        """A model without vision: nothing is read; `refusal` says why (empty: allowed)."""
        self.refusal = refusal

    def take(self) -> tuple[ImageAttachment, ...]:
        """The images for the message being sent; the composer is then empty of them."""
        taken = tuple(self.images)
        self.clear()
        return taken

    def restore(self, images: Sequence[ImageAttachment]) -> None:
        """Images taken for a message that could not be sent yet: back in the composer."""
        for image in images:
            self._add(image)

    def clear(self) -> None:
        self.images.clear()
        for thumb in self.row.thumbnails():
            self.row.remove(thumb)
        self.row.hide()
        self.show_problem("")
        self.changed.emit()

    def remove(self, image: ImageAttachment) -> None:
        for index, held in enumerate(self.images):
            if held is image:
                del self.images[index]
                self.row.remove(self.row.thumbnails()[index])
                break
        self.row.setVisible(bool(self.images))
        self.changed.emit()

    def show_problem(self, message: str) -> None:
        self.problem.setText(message)
        self.problem.setVisible(bool(message))

    # --- reading ---------------------------------------------------------------------

    def _load(self, loaders: list[Loader]) -> asyncio.Task[None]:
        return self.tasks.spawn(self._read_all(loaders))

    async def _read_all(self, loaders: list[Loader]) -> None:
        if not loaders:
            return
        if self.refusal:
            self.show_problem(self.refusal)
            return
        # Pillow (through core.images) only once an image is attached, not at start
        from loki_desktop.core.images import ImageRefused

        problems: list[str] = []
        for loader in loaders:
            try:
                image = await asyncio.to_thread(loader)
            except ImageRefused as refused:
                problems.append(str(refused))
                continue
            self._add(image)
        self.show_problem("\n".join(problems))

    def _add(self, image: ImageAttachment) -> None:
        self.images.append(image)
        thumb = self.row.add(attachment_thumbnail(image, removable=True))
        thumb.remove_requested.connect(lambda: self.remove(image))
        self.row.show()
        self.changed.emit()

    def _pasted_name(self) -> str:
        return _("image collée {n}").format(n=len(self.images) + 1)


def _file_loader(path: Path) -> Loader:
    def load() -> ImageAttachment:
        from loki_desktop.core.images import load_image

        return load_image(path)

    return load


def _bytes_loader(data: bytes, name: str) -> Loader:
    def load() -> ImageAttachment:
        from loki_desktop.core.images import prepare_image

        return prepare_image(data, name)

    return load


def _qimage_loader(image: QImage, name: str) -> Loader:
    # QImage is not a QObject: it may be encoded in the worker thread
    def load() -> ImageAttachment:
        from loki_desktop.core.images import prepare_image

        return prepare_image(png_bytes(image), name)

    return load
