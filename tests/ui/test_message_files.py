"""Files attached in the window: chips in the composer and the sent message, the text to the
model, the words alone when the conversation is opened again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QMessageBox

from loki_desktop.core.services import Services
from loki_desktop.ui.chat.items import UserMessage
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.pdf_files import text_pdf
from tests.ui.helpers import open_window, wait_until


async def test_a_file_goes_with_the_message_and_shows_as_a_chip(
    ollama: FakeOllama, qtbot: Any, services: Services, tmp_path: Path
) -> None:
    (tmp_path / "devis.pdf").write_bytes(text_pdf(["Total : 120 euros"]))
    (tmp_path / "notes.txt").write_bytes("café\n".encode("cp1252") * 400)
    async with open_window(services, qtbot, ollama.url) as window:
        ollama.script(Reply.text("Lu."))
        attachments = window.composer.attachments
        await attachments.attach_paths([tmp_path / "devis.pdf", tmp_path / "notes.txt"])
        chips = [chip.text.text() for chip in attachments.chips.chips()]
        assert chips == ["devis.pdf · 651 octets", "notes.txt · 2 Ko"]
        window.composer.set_text("Compare")
        window.composer.submit()
        assert attachments.chips.chips() == []  # taken with the message
        await wait_until(lambda: window.sessions.current is not None)
        session = window.sessions.current
        assert session is not None
        # the files are first measured against the context left, then the turn runs
        await wait_until(lambda: len(ollama.chat_requests) == 1 and not session.runner.busy)
        content = ollama.chat_requests[0]["messages"][-1]["content"]
        assert content.startswith('Compare\n\n<file name="devis.pdf" pages="1">\nTotal : 120')
        assert '<file name="notes.txt">\ncafé\ncafé\n' in content
        sent = next(i for i in session.view.items() if isinstance(i, UserMessage))
        assert sent.text == "Compare"
        assert sent.chips is not None
        assert [c.text.text() for c in sent.chips.chips()] == chips

        # opened again from the history: the person's words, and the same chips
        conversation = session.id
        window.sessions.new_conversation()
        window.sessions.open_conversation(conversation)
        await wait_until(lambda: window.sessions.current is not None)
        reopened = window.sessions.current
        assert reopened is not None
        await wait_until(lambda: any(isinstance(i, UserMessage) for i in reopened.view.items()))
        again = next(i for i in reopened.view.items() if isinstance(i, UserMessage))
        assert again.text == "Compare"
        assert again.chips is not None
        assert [c.text.text() for c in again.chips.chips()] == chips


async def test_files_past_the_context_are_said_before_sending_and_their_start_offered(
    ollama: FakeOllama, qtbot: Any, services: Services, tmp_path: Path
) -> None:
    big = tmp_path / "livre.txt"
    big.write_text("".join(f"Ligne {n} d'un très long livre.\n" for n in range(20_000)))
    async with open_window(services, qtbot, ollama.url) as window:
        attachments = window.composer.attachments
        await attachments.attach_paths([big])
        window.composer.set_text("Résume")
        window.composer.submit()
        box = await _question(window)
        assert "dans le contexte du modèle" in box.text()
        cancel = next(b for b in box.buttons() if b.text() == "Annuler")
        cancel.click()
        # nothing sent: the words and the file back in the composer
        await wait_until(lambda: window.composer.text() == "Résume")
        assert [f.name for f in attachments.files] == ["livre.txt"]
        assert ollama.chat_requests == []

        ollama.script(Reply.text("Début lu."))
        window.composer.submit()
        box = await _question(window)
        send = next(b for b in box.buttons() if b.text() == "Envoyer le début")
        send.click()
        await wait_until(lambda: window.sessions.current is not None)
        session = window.sessions.current
        assert session is not None
        await wait_until(lambda: len(ollama.chat_requests) == 1 and not session.runner.busy)
        content = ollama.chat_requests[0]["messages"][-1]["content"]
        assert '<file name="livre.txt" part="first ' in content
        assert "Ligne 19999" not in content
        sent = next(i for i in session.view.items() if isinstance(i, UserMessage))
        assert sent.chips is not None
        assert sent.chips.chips()[0].text.text().endswith("· début seulement")


async def _question(window: Any) -> QMessageBox:
    def shown() -> QMessageBox | None:
        boxes = [
            b
            for b in window.findChildren(QMessageBox)
            if b.objectName() == "OversizeQuestion" and b.isVisible()
        ]
        return boxes[0] if boxes else None

    await wait_until(lambda: shown() is not None)
    box = shown()
    assert box is not None
    return box
