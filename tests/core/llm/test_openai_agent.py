"""The agent above the port, unchanged, with the OpenAI-compatible backend: tools, the context
budget's overflow retry, the fallback to prompted tools, reasoning as thinking."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from loki_desktop.core.events import Error, Notice, Thinking, Token, ToolCall, ToolResult
from loki_desktop.core.llm.openai_backend import OpenAIBackend
from loki_desktop.core.messages import ChatMessage
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent, turn
from tests.fakes.openai_server import Call, FakeOpenAI, Reply

MODEL = "Qwen/Qwen2.5-Coder-7B-Instruct"


@pytest.fixture
async def served() -> AsyncIterator[tuple[FakeOpenAI, OpenAIBackend]]:
    with FakeOpenAI(max_model_len=32768) as server:
        backend = OpenAIBackend(server.url, label="vLLM")
        try:
            yield server, backend
        finally:
            await backend.close()


def _long_history(store: History, messages: int, chars: int) -> str:
    conversation = store.create("long")
    for index in range(messages):
        role = "user" if index % 2 == 0 else "assistant"
        store.append(conversation, ChatMessage(role, f"{index}: " + "mot " * (chars // 4)))
    return conversation


async def test_two_calls_in_one_reply_both_run(
    served: tuple[FakeOpenAI, OpenAIBackend], store: History, workspace: Path
) -> None:
    server, backend = served
    server.script(
        Reply(
            calls=[
                Call("write_file", {"path": "a.txt", "content": "A"}, 5),
                Call("write_file", {"path": "b.txt", "content": "B"}, 2),
            ]
        ),
        Reply.text("Faits."),
    )
    agent = make_agent(backend, store, workspace, Settings(model=MODEL), skills=False)
    events = await turn(agent, "Deux fichiers")
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["write_file", "write_file"]
    assert all(e.ok for e in events if isinstance(e, ToolResult))
    assert (workspace / "a.txt").read_text() == "A"
    assert (workspace / "b.txt").read_text() == "B"
    tool_messages = [m for m in server.chat_requests[1]["messages"] if m["role"] == "tool"]
    ids = [c["id"] for c in server.chat_requests[1]["messages"][-3]["tool_calls"]]
    assert [m["tool_call_id"] for m in tool_messages] == ids


async def test_vllm_overflow_shrinks_the_budget_and_retries(
    served: tuple[FakeOpenAI, OpenAIBackend], store: History, workspace: Path
) -> None:
    server, backend = served
    conversation = _long_history(store, 6, 4000)
    server.script(Reply.overflow(4096, 9000, 5000), Reply.text("Réponse."))
    agent = make_agent(
        backend, store, workspace, Settings(model=MODEL), skills=False, compaction=False
    )
    events = await turn(agent, "Résume", conversation)
    assert "".join(e.text for e in events if isinstance(e, Token)) == "Réponse."
    assert not any(isinstance(e, Error) for e in events)
    assert any("4096" in e.message for e in events if isinstance(e, Notice))
    first, retried = (len(b["messages"]) for b in server.chat_requests)
    assert retried < first


async def test_an_empty_stream_with_tools_falls_back_to_prompted_tools(
    served: tuple[FakeOpenAI, OpenAIBackend], store: History, workspace: Path
) -> None:
    """llama-cpp-python answers 200 with an empty body to a streamed request with tools."""
    server, backend = served
    server.script(Reply(empty=True), Reply.text("Sans outils natifs."))
    agent = make_agent(backend, store, workspace, Settings(model=MODEL), skills=False)
    events = await turn(agent, "Bonjour")
    assert "".join(e.text for e in events if isinstance(e, Token)) == "Sans outils natifs."
    first, second = server.chat_requests
    assert first.get("tools")
    assert not second.get("tools")


async def test_an_empty_stream_without_tools_is_an_error_sentence(
    served: tuple[FakeOpenAI, OpenAIBackend], store: History, workspace: Path
) -> None:
    server, backend = served
    server.script(Reply(empty=True))
    settings = Settings(model=MODEL, tool_modes={MODEL: "none"})
    agent = make_agent(backend, store, workspace, settings, skills=False)
    events = await turn(agent, "Bonjour")
    errors = [e.message for e in events if isinstance(e, Error)]
    assert len(errors) == 1
    assert "vide" in errors[0]
    assert server.url in errors[0]


async def test_reasoning_is_shown_as_thinking(
    served: tuple[FakeOpenAI, OpenAIBackend], store: History, workspace: Path
) -> None:
    server, backend = served
    server.script(Reply(reasoning=["Voyons"], tokens=["42"], reasoning_field="reasoning"))
    agent = make_agent(backend, store, workspace, Settings(model=MODEL), skills=False)
    events = await turn(agent, "Combien ?")
    assert "".join(e.text for e in events if isinstance(e, Thinking)) == "Voyons"
    assert "".join(e.text for e in events if isinstance(e, Token)) == "42"
