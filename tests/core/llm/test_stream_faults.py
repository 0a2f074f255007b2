"""Abnormal streams, through the real backends and the agent: every line has a cap, one
garbage line is skipped with a notice, and a silent server is said to be silent, live."""

from __future__ import annotations

import resource
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from loki_desktop.core.events import Done, Error, Notice, Token
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.llm.openai_backend import OpenAIBackend
from loki_desktop.core.ports import ChatChunk
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent, turn
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.ollama_server import Reply as OllamaReply
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.openai_server import Reply as OpenAIReply

MODEL = "Qwen/Qwen2.5-Coder-7B-Instruct"


@pytest.fixture
async def openai() -> AsyncIterator[tuple[FakeOpenAI, OpenAIBackend]]:
    with FakeOpenAI(max_model_len=32768) as server:
        backend = OpenAIBackend(server.url, label="vLLM")
        try:
            yield server, backend
        finally:
            await backend.close()


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.mark.timeout(120)  # before the cap, the line grew the process until it was killed
async def test_an_endless_sse_line_is_cut_at_the_cap_and_the_answer_kept(
    openai: tuple[FakeOpenAI, OpenAIBackend], store: History, workspace: Path
) -> None:
    server, backend = openai
    server.script(OpenAIReply.text("Début ", "de ", "réponse", endless_after=2))
    agent = make_agent(backend, store, workspace, Settings(model=MODEL), skills=False)
    before = _peak_rss_mb()
    events = await turn(agent, "Bonjour")
    assert _peak_rss_mb() - before < 160  # the 32 MB line and a copy of it, not gigabytes
    (error,) = [e for e in events if isinstance(e, Error)]
    assert "ligne de plus de 32 Mo" in error.message
    assert "".join(e.text for e in events if isinstance(e, Token)) == "Début de "
    (answer,) = [m for m in store.messages(events[-1].session or "") if m.role == "assistant"]
    assert (answer.content, answer.cut) == ("Début de ", True)


@pytest.mark.timeout(120)
async def test_an_endless_ndjson_line_is_cut_at_the_cap_and_the_answer_kept(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(OllamaReply.text("Un ", "deux ", "trois", endless_after=1))
    events = await turn(make_agent(backend, store, workspace, skills=False), "Compte")
    (error,) = [e for e in events if isinstance(e, Error)]
    assert "ligne de plus de 32 Mo" in error.message
    assert "".join(e.text for e in events if isinstance(e, Token)) == "Un "


async def test_one_garbage_sse_line_is_skipped_with_a_notice(
    openai: tuple[FakeOpenAI, OpenAIBackend], store: History, workspace: Path
) -> None:
    server, backend = openai
    server.script(OpenAIReply.text("Tout ", "est ", "là.", garbage_after=1))
    agent = make_agent(backend, store, workspace, Settings(model=MODEL), skills=False)
    events = await turn(agent, "Bonjour")
    assert "".join(e.text for e in events if isinstance(e, Token)) == "Tout est là."
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert any("ligne illisible" in n and "ignorée" in n for n in notices), notices
    assert not [e for e in events if isinstance(e, Error)]
    assert isinstance(events[-1], Done)
    assert events[-1].reason == "completed"


async def test_one_garbage_ndjson_line_is_skipped_with_a_notice(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(OllamaReply.text("Tout ", "est ", "là.", garbage_after=2))
    events = await turn(make_agent(backend, store, workspace, skills=False), "Bonjour")
    assert "".join(e.text for e in events if isinstance(e, Token)) == "Tout est là."
    assert any("ligne illisible" in e.message for e in events if isinstance(e, Notice))
    assert isinstance(events[-1], Done)
    assert events[-1].reason == "completed"


@pytest.mark.timeout(60)
async def test_a_silent_server_is_said_silent_live_and_the_turn_waits_on(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    reply = OllamaReply.text("Je ", "réfléchis ", "encore.", pause_after=1)
    ollama.script(reply)
    agent = make_agent(backend, store, workspace, skills=False)
    agent.quiet_s = 0.2  # the window's 15 s, shortened
    seen: list[str] = []
    async for event in agent.run_turn("Bonjour"):
        if isinstance(event, Token):
            seen.append(event.text)
        elif isinstance(event, Notice) and "ne répond plus" in event.message:
            seen.append("<silence>")
            reply.resume.set()  # the server speaks again only once the silence was said
        elif isinstance(event, Done):
            assert event.reason == "completed"
    assert seen == ["Je ", "<silence>", "réfléchis ", "encore."]


def test_fields_of_another_type_are_ignored_not_fatal() -> None:
    """Found by fuzzing: `"choices": true` raised TypeError out of the stream."""
    from loki_desktop.core.llm.openai_stream import DeltaAssembler

    assembler = DeltaAssembler()
    assert assembler.feed('{"choices": true}') is None
    assert assembler.feed('{"choices": [{"delta": {"tool_calls": 3, "content": "a"}}]}') == (
        ChatChunk(content="a")
    )
    assert assembler.final().tool_calls == ()
