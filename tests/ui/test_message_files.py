"""Files attached in the window: chips in the composer and the sent message, the text to the
model, the words alone when the conversation is opened again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
        await wait_until(lambda: not session.runner.busy)
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
