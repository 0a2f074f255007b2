"""A conversation's own instructions (its menu) replace the personal ones for its turns."""

from __future__ import annotations

from typing import Any

from loki_desktop.core.services import Services
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.helpers import open_window, wait_until


def _system(request: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in request["messages"] if m["role"] == "system")


async def test_the_conversation_menu_sets_instructions_its_next_turns_follow(
    ollama: FakeOllama, qtbot: Any, services: Services
) -> None:
    settings = services.settings.load()
    settings.instructions = "Réponds toujours en vers."
    services.settings.save(settings)
    async with open_window(services, qtbot, ollama.url) as window:
        ollama.script(Reply.text("Ô toi…"), Reply.text("Bref."))
        window.composer.set_text("Salut")
        window.composer.submit()
        await wait_until(lambda: window.sessions.current is not None)
        session = window.sessions.current
        assert session is not None
        await wait_until(lambda: len(ollama.chat_requests) == 1 and not session.runner.busy)
        assert "Réponds toujours en vers." in _system(ollama.chat_requests[0])

        dialog = window.edit_instructions(session.id)
        assert dialog.windowTitle() == "Instructions de « Salut »"
        dialog.text.setPlainText("Sois bref, en prose.")
        dialog.save_button.click()
        assert services.settings.load().conversation_instructions == {
            session.id: "Sois bref, en prose."
        }
        window.composer.set_text("Encore")
        window.composer.submit()
        await wait_until(lambda: len(ollama.chat_requests) == 2 and not session.runner.busy)
        second = _system(ollama.chat_requests[1])
        assert "Sois bref, en prose." in second
        assert "en vers" not in second

        window.sessions.delete_conversation(session.id)
        await wait_until(lambda: not services.settings.load().conversation_instructions)
