"""The header's quiet "AGENTS.md" badge follows the workspace's file, read again after a turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from loki_desktop.core.services import Services
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.helpers import open_window, wait_until


async def test_the_badge_shows_while_the_workspace_has_an_agents_md(
    ollama: FakeOllama, qtbot: Any, services: Services, workspace: Path
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        badge = window.header.agents_md
        window.workspace_picker.choose(str(workspace))
        assert badge.isHidden()  # no AGENTS.md yet
        (workspace / "AGENTS.md").write_text("Lancez `make test` avant de livrer.\n")
        ollama.script(Reply.text("ok"))
        window.composer.set_text("Salut")
        window.composer.submit()
        await wait_until(lambda: window.sessions.current is not None)
        session = window.sessions.current
        assert session is not None
        await wait_until(lambda: not session.runner.busy)
        assert badge.isVisible()
        assert badge.text() == "AGENTS.md"
        assert badge.path == workspace / "AGENTS.md"
        assert badge.toolTip() == (
            "Les instructions du projet (AGENTS.md) vont au modèle à chaque tour."
        )
        system = [
            m["content"] for m in ollama.chat_requests[0]["messages"] if m["role"] == "system"
        ]
        assert any("Lancez `make test` avant de livrer." in text for text in system)

        (workspace / "AGENTS.md").write_bytes(b"R\xe8gle\n")  # not UTF-8 any more
        window.workspace.refresh_agents_md()
        assert badge.property("state") == "problem"
        assert badge.toolTip() == "AGENTS.md n'est pas écrit en UTF-8 : il est laissé de côté."
        (workspace / "AGENTS.md").unlink()
        window.workspace.refresh_agents_md()
        assert badge.isHidden()
