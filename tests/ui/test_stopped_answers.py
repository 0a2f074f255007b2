"""In the window: an answer the repetition guard stopped is marked cut with its notice after
it, and a file described but never written says that no tool was used."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from loki_desktop.core.services import Services
from loki_desktop.ui.chat.items import AssistantMessage, NoticeLine
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.helpers import open_window, wait_until

PASSAGE = "Je répète cette phrase encore une fois, toujours la même, sans rien changer. "


async def _send(window: Any, text: str) -> Any:
    window.composer.set_text(text)
    window.composer.submit()
    session = window.sessions.current
    assert session is not None
    await wait_until(lambda: session.runner.last_reason != "")  # the turn is over
    return session


async def test_a_loop_is_stopped_and_the_answer_marked_cut(
    ollama: FakeOllama, services: Services, qtbot: Any
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        ollama.script(Reply.text("Voici. ", *[PASSAGE] * 200))
        session = await _send(window, "Explique")
        assert session.runner.last_reason == "repetition"
        items = session.view.items()
        answer = next(i for i in items if isinstance(i, AssistantMessage))
        assert answer.cut_note.isVisibleTo(answer)
        notice = items[-1]
        assert isinstance(notice, NoticeLine)
        assert "en boucle" in notice.message
        stored = window.runtime.store.messages(session.id)[-1]
        assert stored.content == "Voici. " + PASSAGE


async def test_a_file_only_described_says_no_tool_was_used(
    ollama: FakeOllama, services: Services, qtbot: Any, workspace: Path
) -> None:
    settings = services.settings.load()
    settings.workspace = str(workspace)  # the file tools are offered in a workspace
    services.settings.save(settings)
    async with open_window(services, qtbot, ollama.url) as window:
        ollama.script(Reply.text("Voici hello.py :\n\n```python\nprint('Bonjour')\n```"))
        session = await _send(window, "Écris hello.py qui dit Bonjour")
        notice = session.view.items()[-1]
        assert isinstance(notice, NoticeLine)
        assert "aucun outil" in notice.message
        assert not (workspace / "hello.py").exists()
