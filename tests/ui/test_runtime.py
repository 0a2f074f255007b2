"""The window's runtime: one agent per turn, but what the agents learn is kept."""

from __future__ import annotations

from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.services import Services
from loki_desktop.core.settings import Settings
from loki_desktop.ui.runtime import Runtime
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
