"""Images for vision models: checked by content, downscaled, sent as base64, kept as files."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
from PIL import Image

from loki_desktop.core.events import Done, Error
from loki_desktop.core.images import MAX_BYTES, MAX_SIDE, ImageRefused, load_image, prepare_image
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent, turn
from tests.core.models.conftest import served
from tests.fakes.ollama_server import ModelCard, Reply

VISION = ModelCard.no_tools("vision", family="gemma3")
BLIND = ModelCard(family="llama")


def picture(kind: str, size: tuple[int, int] = (64, 48)) -> bytes:
    out = io.BytesIO()
    mode = "P" if kind == "GIF" else "RGB"
    Image.new(mode, size, 1 if mode == "P" else (10, 120, 200)).save(out, kind)
    return out.getvalue()


@pytest.mark.parametrize(
    ("kind", "mime"),
    [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("WEBP", "image/png"), ("GIF", "image/png")],
)
def test_the_four_formats_are_read_by_content(tmp_path: Path, kind: str, mime: str) -> None:
    path = tmp_path / "photo.bin"  # the name says nothing: the bytes do
    path.write_bytes(picture(kind))
    image = load_image(path)
    assert (image.mime_type, image.width, image.height, image.name) == (mime, 64, 48, "photo.bin")
    assert Image.open(io.BytesIO(image.content())).size == (64, 48)


def test_a_large_image_is_downscaled_to_the_long_side(tmp_path: Path) -> None:
    image = prepare_image(picture("PNG", (4000, 1000)), "wide.png")
    assert (image.width, image.height) == (MAX_SIDE, 392)
    assert Image.open(io.BytesIO(image.content())).size == (MAX_SIDE, 392)
    small = picture("JPEG")
    assert prepare_image(small).content() == small  # already fine: the bytes as given


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"%PDF-1.7 not an image", "n'est pas une image PNG, JPEG, WebP ou GIF"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, "abîmée ou illisible"),
        (b"", "n'est pas une image"),
    ],
)
def test_what_is_not_an_image_gets_a_sentence(tmp_path: Path, content: bytes, words: str) -> None:
    path = tmp_path / "x.png"
    path.write_bytes(content)
    with pytest.raises(ImageRefused, match=words):
        load_image(path)


def test_oversized_missing_and_unreadable_files_get_a_sentence(tmp_path: Path) -> None:
    big = tmp_path / "big.png"
    with big.open("wb") as out:
        out.truncate(MAX_BYTES + 1)
    with pytest.raises(ImageRefused, match="Loki accepte au plus 20 Mo"):
        load_image(big)
    with pytest.raises(ImageRefused, match=r"Impossible de lire l.image « absent\.png »"):
        load_image(tmp_path / "absent.png")
    with pytest.raises(ImageRefused, match="est un dossier"):
        load_image(tmp_path)


async def test_an_image_reaches_a_vision_model_as_base64_and_is_kept_as_a_file(
    store: History, workspace: Path, tmp_path: Path
) -> None:
    (tmp_path / "chat.png").write_bytes(picture("PNG"))
    image = load_image(tmp_path / "chat.png")
    async with served({"gemma3:4b": VISION}) as (server, backend):
        server.script(Reply.text("Un rectangle bleu."), Reply.text("Toujours bleu."))
        agent = make_agent(backend, store, workspace, Settings(model="gemma3:4b"), skills=False)
        events = await turn(agent, "Que vois-tu ?", images=[image])
        assert isinstance(events[-1], Done)
        session = events[-1].session
        assert session is not None
        await turn(agent, "Et maintenant ?", session)
    sent = server.chat_requests[0]["messages"][-1]
    assert base64.b64decode(sent["images"][0]) == image.content()
    # kept as a file under the data folder, not in the row; read back for the next request
    stored = store.messages(session)[0].images
    assert len(stored) == 1
    assert stored[0].path is not None
    assert stored[0].path.parent.parent == store.images_dir
    assert stored[0].path.read_bytes() == image.content()
    assert server.chat_requests[1]["messages"][1]["images"] == sent["images"]
    store.delete(session)
    assert not stored[0].path.exists()
    assert not (store.images_dir / session).exists()


async def test_an_image_for_a_model_without_vision_is_refused_and_nothing_sent(
    store: History, workspace: Path
) -> None:
    image = prepare_image(picture("PNG"), "a.png")
    async with served({"llama3.1:8b": BLIND}) as (server, backend):
        agent = make_agent(backend, store, workspace, Settings(model="llama3.1:8b"), skills=False)
        events = await turn(agent, "Que vois-tu ?", images=[image])
    assert [type(e) for e in events] == [Error, Done]
    assert isinstance(events[0], Error)
    assert "ne lit pas les images : rien n'a été envoyé" in events[0].message
    assert server.chat_requests == []
    assert store.list_conversations()[0].message_count == 0


async def test_images_are_not_sent_to_a_model_that_cannot_see_them_later(
    store: History, workspace: Path
) -> None:
    image = prepare_image(picture("PNG"), "a.png")
    async with served({"gemma3:4b": VISION, "llama3.1:8b": BLIND}) as (server, backend):
        server.script(Reply.text("Bleu."), Reply.text("Je ne vois rien."))
        seeing = make_agent(backend, store, workspace, Settings(model="gemma3:4b"), skills=False)
        events = await turn(seeing, "Regarde", images=[image])
        assert isinstance(events[-1], Done)
        blind = make_agent(backend, store, workspace, Settings(model="llama3.1:8b"), skills=False)
        await turn(blind, "Et toi ?", events[-1].session)
    assert not any("images" in m for m in server.chat_requests[1]["messages"])


def _png_claiming(width: int, height: int) -> bytes:
    """A PNG whose header claims width × height pixels (a decompression bomb's shape)."""
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    pixels = zlib.compress(b"\x00" * 1024)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize("side", [30_000, 9_000])
def test_a_png_bomb_is_called_too_big_not_damaged(tmp_path: Path, side: int) -> None:
    path = tmp_path / "bomb.png"
    path.write_bytes(_png_claiming(side, side))
    with pytest.raises(ImageRefused) as refused:
        load_image(path)
    assert "trop grande" in str(refused.value)
    assert "abîmée" not in str(refused.value)
