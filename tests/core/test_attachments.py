"""Attached files: text in any encoding, PDF text, and every bad input refused in one sentence."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from loki_desktop.core.attachments.loading import (
    MAX_TEXT_BYTES,
    fit_files,
    load_attachment,
    load_attachments,
)
from loki_desktop.core.attachments.model import (
    AttachmentRefused,
    FileAttachment,
    human_size,
    message_text,
)
from tests.pdf_files import bomb_pdf, encrypted, text_pdf

FRENCH = "Le cœur a ses raisons que la raison ne connaît point. Élève, déjà, façade.\n" * 4


def _refusal(path: Path) -> str:
    with pytest.raises(AttachmentRefused) as caught:
        load_attachment(path)
    return str(caught.value)


def test_utf8_code_is_read_as_is(tmp_path: Path) -> None:
    path = tmp_path / "main.py"
    path.write_text("def f():\n    return 'é'\n", encoding="utf-8")
    file = load_attachment(path)
    assert (file.name, file.kind, file.encoding) == ("main.py", "text", "utf-8")
    assert file.text == "def f():\n    return 'é'\n"
    assert file.size == path.stat().st_size
    assert not file.cut


@pytest.mark.parametrize("encoding", ["cp1252", "utf-16", "iso-8859-15"])
def test_other_encodings_are_detected(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(FRENCH.replace("œ", "oe").encode(encoding))
    file = load_attachment(path)
    assert file.text == FRENCH.replace("œ", "oe")
    assert file.encoding != "utf-8"


def test_a_binary_file_named_txt_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "rapport.txt"
    path.write_bytes(bytes(range(256)) * 64)
    assert _refusal(path) == (
        "« rapport.txt » n'est pas un fichier texte (son contenu est binaire) : Loki ne peut "
        "pas le lire pour le modèle."
    )


def test_a_text_past_the_limit_says_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "journal.log"
    with path.open("wb") as out:
        out.write(b"une ligne de journal\n" * (20 * 1024 * 1024 // 21))  # about 20 MB
    assert path.stat().st_size > MAX_TEXT_BYTES
    assert _refusal(path) == (
        "« journal.log » pèse 20,0 Mo : Loki joint au plus 1,0 Mo par fichier de ce type."
    )


def test_a_file_gone_a_folder_and_a_fifo_are_refused_without_waiting(tmp_path: Path) -> None:
    assert (
        _refusal(tmp_path / "parti.txt") == "« parti.txt » n'existe plus (déplacé ou supprimé ?)."
    )
    (tmp_path / "dossier").mkdir()
    assert _refusal(tmp_path / "dossier") == "« dossier » est un dossier."
    fifo = tmp_path / "tube.txt"
    os.mkfifo(fifo)
    assert _refusal(fifo) == "« tube.txt » n'est pas un fichier ordinaire."


def test_an_image_is_sent_as_an_image(tmp_path: Path) -> None:
    path = tmp_path / "photo.txt"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    assert _refusal(path) == "« photo.txt » est une image : joignez-la comme image."


def test_pdf_text_is_extracted_page_by_page(tmp_path: Path) -> None:
    path = tmp_path / "contrat.pdf"
    path.write_bytes(text_pdf(["Article premier (objet)", "Article deux : la durée"]))
    file = load_attachment(path)
    assert (file.kind, file.pages) == ("pdf", 2)
    assert file.text == "Article premier (objet)\n\fArticle deux : la durée"
    block = file.model_block()
    assert block.startswith('<file name="contrat.pdf" pages="2">\n')


def test_a_pdf_with_an_empty_password_opens(tmp_path: Path) -> None:
    path = tmp_path / "ouvert.pdf"
    path.write_bytes(encrypted(text_pdf(["lisible"]), ""))
    assert load_attachment(path).text == "lisible"


@pytest.mark.parametrize(
    ("data", "sentence"),
    [
        (
            encrypted(text_pdf(["secret"]), "motdepasse"),
            "« x.pdf » est protégé par un mot de passe : ouvrez-le et enregistrez-le sans "
            "protection pour le joindre.",
        ),
        (text_pdf(["tronqué"])[:150], "« x.pdf » est un PDF abîmé ou illisible."),
        (
            text_pdf(["", ""]),
            "« x.pdf » ne contient pas de texte (un PDF scanné ?) : il faudrait d'abord le "
            "passer à la reconnaissance de caractères.",
        ),
        (
            bomb_pdf(),
            "« x.pdf » contient des données qui se décompressent démesurément (une bombe de "
            "décompression ?) : Loki ne l'ouvre pas.",
        ),
    ],
    ids=["encrypted", "broken", "scanned", "zip-bomb"],
)
def test_bad_pdfs_get_one_sentence(tmp_path: Path, data: bytes, sentence: str) -> None:
    path = tmp_path / "x.pdf"
    path.write_bytes(data)
    assert _refusal(path) == sentence


async def test_several_files_load_together_and_one_refusal_refuses_them_all(
    tmp_path: Path,
) -> None:
    path = tmp_path / "a.txt"
    path.write_text("a")
    files = await load_attachments([path, path])
    assert [f.text for f in files] == ["a", "a"]
    (tmp_path / "b.txt").write_bytes(b"\x00\x01\x02" * 100)
    with pytest.raises(AttachmentRefused, match=r"b\.txt"):
        await load_attachments([path, tmp_path / "b.txt"])


def test_the_model_reads_the_words_then_each_file_with_its_name() -> None:
    a = FileAttachment("a.py", 10, "text", "print(1)", 8)
    b = FileAttachment('b "2".txt', 4, "text", "deux", 4)
    assert message_text("Relis", (a, b)) == (
        'Relis\n\n<file name="a.py">\nprint(1)\n</file>\n\n'
        '<file name="b &quot;2&quot;.txt">\ndeux\n</file>'
    )
    assert message_text("", (b,)).startswith("<file")
    assert message_text("seul", ()) == "seul"


def test_files_past_the_room_are_cut_to_their_first_part() -> None:
    long = "\n".join(f"ligne {n} du fichier" for n in range(5000))
    big = FileAttachment("big.txt", len(long), "text", long, len(long))
    small = FileAttachment("small.txt", 5, "text", "petit", 5)
    kept, overflow = fit_files((small, big, small), 2000)
    assert overflow is not None
    assert overflow.needed > 2000
    assert [f.name for f in kept] == ["small.txt", "big.txt"]
    assert kept[1].cut
    assert kept[1].text.endswith("\n")  # cut at a line's end
    assert sum(f.tokens() for f in kept) <= 2000
    assert 'part="first ' in kept[1].model_block()
    whole, none = fit_files((small,), 2000)
    assert whole == (small,)
    assert none is None


def test_sizes_are_written_as_people_read_them() -> None:
    assert human_size(512) == "512 octets"
    assert human_size(12_345) == "12 Ko"
    assert human_size(3_565_158) == "3,4 Mo"
