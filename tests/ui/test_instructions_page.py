"""Réglages › Instructions: the person's instructions reach the next turn; prompts are listed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from loki_desktop.core.services import Services
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.helpers import open_window, wait_until


async def test_personal_instructions_are_saved_and_given_to_the_model(
    ollama: FakeOllama, qtbot: Any, services: Services, loki_home: Path
) -> None:
    (loki_home / "prompts").mkdir()
    (loki_home / "prompts" / "revue.md").write_text("Relis ce {{langage}}.")
    (loki_home / "prompts" / "casse.md").write_text("Écris {{nom")
    async with open_window(services, qtbot, ollama.url) as window:
        dialog = window.settings_opener.open()
        dialog.show_page("instructions")
        page = dialog.instructions
        assert page.prompts.text() == "revue"
        assert [line.text() for line in page.problems] == [
            "Le prompt « casse » a une variable mal écrite : « {{nom » (écrivez {{nom}}, un "
            "nom sans espace entre doubles accolades)."
        ]
        page.instructions.setPlainText("Réponds toujours en vers.")
        assert page.count.text() == "25 / 20000 caractères"
        dialog.save_button.click()
        await dialog.tasks.cancel_all()
        assert services.settings.load().instructions == "Réponds toujours en vers."

        ollama.script(Reply.text("Ô lecteur…"))
        window.composer.set_text("Salut")
        window.composer.submit()
        await wait_until(lambda: window.sessions.current is not None)
        session = window.sessions.current
        assert session is not None
        await wait_until(lambda: not session.runner.busy)
        system = [
            m["content"] for m in ollama.chat_requests[0]["messages"] if m["role"] == "system"
        ]
        assert any("Réponds toujours en vers." in text for text in system)
