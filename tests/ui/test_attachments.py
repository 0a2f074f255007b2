"""Images in the composer: the button's files, a paste, a drop; the core's checks and refusals."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from PIL import Image
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QImage
from PySide6.QtWidgets import QApplication

from loki_desktop.core.images import MAX_BYTES, MAX_SIDE
from loki_desktop.ui.chat.composer import Composer
from tests.ui.helpers import wait_until


def image_bytes(kind: str, size: tuple[int, int] = (64, 48)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 40, 40)).save(out, kind)
    return out.getvalue()


def write_image(folder: Path, name: str, kind: str, size: tuple[int, int] = (64, 48)) -> Path:
    path = folder / name
    path.write_bytes(image_bytes(kind, size))
    return path


def make_composer(qtbot: Any) -> Composer:
    composer = Composer()
    qtbot.addWidget(composer)
    composer.resize(700, 160)
    composer.show()
    return composer


async def test_the_four_formats_are_attached_as_thumbnails_and_one_can_be_removed(
    qtbot: Any, tmp_path: Path
) -> None:
    composer = make_composer(qtbot)
    paths = [
        write_image(tmp_path, "a.png", "PNG"),
        write_image(tmp_path, "b.jpg", "JPEG"),
        write_image(tmp_path, "c.webp", "WEBP"),
        write_image(tmp_path, "d.gif", "GIF"),
    ]
    await composer.attachments.attach_paths(paths)
    images = composer.attachments.images
    assert [image.name for image in images] == ["a.png", "b.jpg", "c.webp", "d.gif"]
    thumbs = composer.attachments.row.thumbnails()
    assert len(thumbs) == 4
    assert all(thumb.picture.pixmap() is not None for thumb in thumbs)
    assert not composer.attachments.problem.isVisibleTo(composer)

    second = thumbs[1]
    assert second.remove_button is not None
    second.remove_button.click()
    assert [image.name for image in composer.attachments.images] == ["a.png", "c.webp", "d.gif"]
    assert len(composer.attachments.row.thumbnails()) == 3


async def test_a_large_photo_is_downscaled_by_the_core(qtbot: Any, tmp_path: Path) -> None:
    composer = make_composer(qtbot)
    big = write_image(tmp_path, "grande.jpg", "JPEG", (3000, 2000))
    await composer.attachments.attach_paths([big])
    (image,) = composer.attachments.images
    assert max(image.width, image.height) <= MAX_SIDE


async def test_refused_files_get_the_cores_sentences(qtbot: Any, tmp_path: Path) -> None:
    composer = make_composer(qtbot)
    text = tmp_path / "notes.txt"
    text.write_text("pas une image")
    broken = tmp_path / "abimee.png"
    broken.write_bytes(image_bytes("PNG")[:40])
    huge = tmp_path / "enorme.png"
    with huge.open("wb") as handle:
        handle.truncate(MAX_BYTES + 1)
    missing = tmp_path / "absente.png"
    await composer.attachments.attach_paths([text, broken, huge, missing])
    assert composer.attachments.images == []
    problem = composer.attachments.problem
    assert problem.isVisibleTo(composer)
    lines = problem.text().splitlines()
    assert len(lines) == 4
    assert "notes.txt" in lines[0]
    assert "PNG, JPEG, WebP ou GIF" in lines[0]
    assert "abimee.png" in lines[1]
    assert "enorme.png" in lines[2]
    assert "20 Mo" in lines[2]
    assert "absente.png" in lines[3]

    # the next good image clears the sentence
    await composer.attachments.attach_paths([write_image(tmp_path, "ok.png", "PNG")])
    assert not problem.isVisibleTo(composer)


async def test_pasting_image_bytes_or_a_copied_file_attaches_them(
    qtbot: Any, tmp_path: Path
) -> None:
    composer = make_composer(qtbot)
    as_bytes = QMimeData()
    as_bytes.setData("image/png", image_bytes("PNG"))
    assert composer.input.canInsertFromMimeData(as_bytes)
    composer.input.insertFromMimeData(as_bytes)
    await wait_until(lambda: len(composer.attachments.images) == 1)

    as_image = QMimeData()
    picture = QImage(40, 30, QImage.Format.Format_RGB32)
    picture.fill(Qt.GlobalColor.blue)
    as_image.setImageData(picture)
    composer.input.insertFromMimeData(as_image)
    await wait_until(lambda: len(composer.attachments.images) == 2)
    assert composer.attachments.images[1].mime_type == "image/png"
    assert (composer.attachments.images[1].width, composer.attachments.images[1].height) == (40, 30)

    as_file = QMimeData()
    as_file.setUrls([QUrl.fromLocalFile(str(write_image(tmp_path, "copie.webp", "WEBP")))])
    composer.input.insertFromMimeData(as_file)
    await wait_until(lambda: len(composer.attachments.images) == 3)
    assert composer.attachments.images[2].name == "copie.webp"
    assert composer.text() == ""  # no file URL was typed into the message

    plain = QMimeData()
    plain.setText("du texte")
    composer.input.insertFromMimeData(plain)
    assert composer.text() == "du texte"


async def test_without_vision_the_button_is_disabled_and_nothing_is_read(
    qtbot: Any, tmp_path: Path
) -> None:
    composer = make_composer(qtbot)
    composer.set_vision("« llama3.1:8b » ne lit pas les images.")
    assert not composer.attach_button.isEnabled()
    assert composer.attach_button.toolTip() == "« llama3.1:8b » ne lit pas les images."
    pasted = QMimeData()
    pasted.setData("image/png", image_bytes("PNG"))
    composer.input.insertFromMimeData(pasted)
    await wait_until(lambda: composer.attachments.problem.isVisibleTo(composer))
    assert composer.attachments.images == []
    assert composer.attachments.problem.text() == "« llama3.1:8b » ne lit pas les images."

    composer.set_vision("")
    assert composer.attach_button.isEnabled()
    await composer.attachments.attach_paths([write_image(tmp_path, "a.png", "PNG")])
    assert len(composer.attachments.images) == 1


async def test_send_takes_the_images_and_empties_the_composer(qtbot: Any, tmp_path: Path) -> None:
    composer = make_composer(qtbot)
    await composer.attachments.attach_paths([write_image(tmp_path, "a.png", "PNG")])
    sent: list[tuple[str, tuple[Any, ...]]] = []
    composer.send_requested.connect(lambda text, images: sent.append((text, images)))
    composer.submit()  # an image alone may be sent
    assert len(sent) == 1
    text, images = sent[0]
    assert text == ""
    assert [image.name for image in images] == ["a.png"]
    assert composer.attachments.images == []
    assert composer.attachments.row.thumbnails() == []


def drop_on(widget: Any, mime: QMimeData) -> bool:
    """A real drag-enter then drop, delivered the way Qt delivers them (to the widget under the
    pointer, then up to the first ancestor that accepts)."""
    pos = QPointF(10, 10)
    enter = QDragEnterEvent(
        pos.toPoint(),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(widget, enter)
    if not enter.isAccepted():
        return False
    drop = QDropEvent(
        pos,
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(widget, drop)
    return drop.isAccepted()


async def test_images_attached_before_switching_to_a_blind_model_are_kept_not_sent(
    qtbot: Any, tmp_path: Path
) -> None:
    composer = make_composer(qtbot)
    await composer.attachments.attach_paths([write_image(tmp_path, "a.png", "PNG")])
    composer.set_vision("« llama3.1:8b » ne lit pas les images.")
    sent: list[object] = []
    composer.send_requested.connect(lambda *args: sent.append(args))
    composer.set_text("Et cette image ?")
    composer.submit()
    assert sent == []
    assert composer.text() == "Et cette image ?"
    assert len(composer.attachments.images) == 1
    assert composer.attachments.problem.text() == "« llama3.1:8b » ne lit pas les images."
