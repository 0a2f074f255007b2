"""The window's runtime: one agent per turn, but what the agents learn is kept."""

from __future__ import annotations

import asyncio
import sys

from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.services import Services
from loki_desktop.core.settings import Settings
from loki_desktop.ui.runtime import Runtime
from tests.conftest import REPO
from tests.fakes.ollama_server import FakeOllama, Reply


async def test_each_model_window_is_asked_once_across_turns(
    services: Services, ollama: FakeOllama
) -> None:
    services.settings.save(Settings(host=ollama.url, model="qwen2.5-coder:7b"))
    runtime = Runtime(services)
    ollama.script(Reply.text("un"), Reply.text("deux"), Reply.text("trois"))
    try:
        conversation = None
        for text in ("premier", "second"):
            agent = runtime.make_agent(FixedApprover(False))
            async for event in agent.run_turn(text, conversation):
                conversation = getattr(event, "session", conversation)
        shows = [path for _m, path, _b in ollama.requests if path == "/api/show"]
        assert len(shows) == 1

        runtime.set_host(ollama.url + "/")  # the same server: nothing to forget
        agent = runtime.make_agent(FixedApprover(False))
        async for _event in agent.run_turn("troisième", conversation):
            pass
        assert [path for _m, path, _b in ollama.requests].count("/api/show") == 1
    finally:
        await runtime.aclose()


# Another process writing settings.json while the window is open (the CLI).
OTHER_WRITER = """
import sys
from pathlib import Path
from loki_desktop.persistence.settings_file import SettingsFile

SettingsFile(Path(sys.argv[1])).update(lambda s: setattr(s, "skills_enabled", False))
"""


async def test_the_window_saving_keeps_what_others_wrote_meanwhile(services: Services) -> None:
    """The window writes only what it changed: a setting another process saved since, and a
    server the MCP service changed, both survive its save."""
    from loki_desktop.persistence.paths import settings_path

    services.settings.save(Settings(model="qwen", language="fr"))
    runtime = Runtime(services)
    try:
        assert runtime.settings.skills_enabled
        other = await asyncio.create_subprocess_exec(
            sys.executable, "-c", OTHER_WRITER, str(settings_path()), cwd=REPO
        )
        assert await asyncio.wait_for(other.wait(), 120) == 0
        runtime.mcp.set_sampling("fetch", "never")
        runtime.settings.language = "en"
        runtime.save_settings()
    finally:
        await runtime.aclose()
    saved = services.settings.load()
    assert (saved.language, saved.model, saved.skills_enabled) == ("en", "qwen", False)
    assert saved.mcp_servers["fetch"]["sampling"] == "never"
    # the window now holds what the file says, so its next save keeps it too
    assert runtime.settings.skills_enabled is False
    assert runtime.settings.mcp_servers == saved.mcp_servers
