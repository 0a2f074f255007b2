"""Thinking models: reasoning streamed as it comes, `think` as chosen, kept but not resent."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from loki_desktop.core.events import Done, Error, Event, Notice, Thinking, Token
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent, turn
from tests.core.models.conftest import served
from tests.fakes.ollama_server import ModelCard, Reply

QWEN3 = ModelCard.thinker(family="qwen3")
GPT_OSS = ModelCard.thinker("low", "medium", "high", family="gptoss")
GEMMA3 = ModelCard.no_tools("vision", family="gemma3")


async def test_the_first_thinking_event_comes_with_the_first_reasoning_chunk(
    store: History, workspace: Path
) -> None:
    gate = threading.Event()  # the server sends the rest only once the test saw the first
    async with served({"qwen3:8b": QWEN3}) as (server, backend):
        server.script(Reply.thinks(["Je compte ", "les r…"], "Il y en a ", "3.", gate=gate))
        agent = make_agent(backend, store, workspace, Settings(model="qwen3:8b"), skills=False)
        events: list[Event] = []
        stream = agent.run_turn("Combien de r dans strawberry ?")
        try:
            while not any(isinstance(e, Thinking) for e in events):
                events.append(await asyncio.wait_for(anext(stream), 30))
            assert not any(isinstance(e, Token) for e in events)
            gate.set()
            events += [event async for event in stream]
        finally:
            gate.set()
            await stream.aclose()
    thinking = [e.text for e in events if isinstance(e, Thinking)]
    tokens = [e.text for e in events if isinstance(e, Token)]
    assert thinking == ["Je compte ", "les r…"]
    assert "".join(tokens) == "Il y en a 3."
    first_token = next(i for i, e in enumerate(events) if isinstance(e, Token))
    assert all(isinstance(e, Thinking) for e in events[first_token - 2 : first_token])
    done = events[-1]
    assert isinstance(done, Done)
    assert done.reason == "completed"
    assert done.session is not None
    answer = store.messages(done.session)[-1]
    assert (answer.content, answer.thinking) == ("Il y en a 3.", "Je compte les r…")
    assert answer.thinking_seconds is not None
    assert answer.thinking_seconds >= 0


@pytest.mark.parametrize(
    ("model", "card", "mode", "sent"),
    [
        ("qwen3:8b", QWEN3, "auto", None),
        ("qwen3:8b", QWEN3, "off", False),
        ("qwen3:8b", QWEN3, "on", True),
        ("qwen3:8b", QWEN3, "high", True),  # no levels listed: a level means "on"
        ("gpt-oss:20b", GPT_OSS, "low", "low"),
        ("gpt-oss:20b", GPT_OSS, "off", False),
        ("gpt-oss:20b", GPT_OSS, "max", None),  # never a level the model does not list
        ("gemma3:4b", GEMMA3, "on", None),  # no thinking capability: nothing sent, no 400
    ],
)
async def test_think_is_sent_as_chosen(
    store: History, workspace: Path, model: str, card: ModelCard, mode: str, sent: object
) -> None:
    async with served({model: card}) as (server, backend):
        server.script(Reply.text("ok"))
        settings = Settings(model=model, think=mode)
        events = await turn(make_agent(backend, store, None, settings, skills=False), "Bonjour")
    assert isinstance(events[-1], Done)
    assert events[-1].reason == "completed"
    body = server.chat_requests[0]
    assert body.get("think", None) == sent
    assert ("think" in body) is (sent is not None)


async def test_reasoning_is_kept_but_never_sent_back_in_later_turns(
    store: History, workspace: Path
) -> None:
    async with served({"qwen3:8b": QWEN3}) as (server, backend):
        server.script(Reply.thinks(["secret plan"], "Bonjour !"), Reply.text("Re-bonjour"))
        agent = make_agent(backend, store, workspace, Settings(model="qwen3:8b"), skills=False)
        first = await turn(agent, "Salut")
        assert isinstance(first[-1], Done)
        await turn(agent, "Encore", first[-1].session)
    later = server.chat_requests[1]["messages"]
    assert [m["content"] for m in later if m["role"] == "assistant"] == ["Bonjour !"]
    assert not any("thinking" in m for m in later)
    assert "secret plan" not in str(later)


async def test_reasoning_goes_back_with_the_tool_calls_of_its_own_turn(
    store: History, workspace: Path
) -> None:
    # Ollama's tool-calling docs: send thinking, content and tool_calls back together
    (workspace / "a.txt").write_text("hello")
    async with served({"gpt-oss:20b": GPT_OSS}) as (server, backend):
        server.script(
            Reply(
                thinking=["I should read a.txt"],
                tool_calls=[{"function": {"name": "read_file", "arguments": {"path": "a.txt"}}}],
            ),
            Reply.thinks(["It says hello"], "Le fichier dit hello."),
            Reply.text("ok"),
        )
        agent = make_agent(backend, store, workspace, Settings(model="gpt-oss:20b"), skills=False)
        events = await turn(agent, "Lis a.txt")
        assert isinstance(events[-1], Done)
        assert events[-1].reason == "completed"
        await turn(agent, "Merci", events[-1].session)
    within = server.chat_requests[1]["messages"]
    call = next(m for m in within if m.get("tool_calls"))
    assert call["thinking"] == "I should read a.txt"
    later = server.chat_requests[2]["messages"]
    assert not any("thinking" in m for m in later)


async def test_think_tags_in_the_content_never_reach_the_answer(
    store: History, workspace: Path
) -> None:
    async with served({"deepseek:r1": ModelCard()}) as (server, backend):
        server.script(Reply.text("<thi", "nk>Hmm, 2+2", "…</th", "ink>\n\nÇa fait ", "4."))
        agent = make_agent(backend, store, workspace, Settings(model="deepseek:r1"), skills=False)
        events = await turn(agent, "2+2 ?")
    tokens = "".join(e.text for e in events if isinstance(e, Token))
    thinking = "".join(e.text for e in events if isinstance(e, Thinking))
    assert tokens == "Ça fait 4."
    assert thinking == "Hmm, 2+2…"
    assert isinstance(events[-1], Done)
    assert events[-1].session is not None
    stored = store.messages(events[-1].session)[-1]
    assert (stored.content, stored.thinking) == ("Ça fait 4.", "Hmm, 2+2…")


async def test_a_server_that_refuses_think_gets_the_request_again_without_it(
    store: History, workspace: Path
) -> None:
    card = ModelCard.thinker(refuse_thinking=True)
    async with served({"qwen3:8b": card}) as (server, backend):
        server.script(Reply.text("ok"), Reply.text("encore"))
        agent = make_agent(backend, store, workspace, Settings(model="qwen3:8b", think="on"))
        events = await turn(agent, "Bonjour")
        assert isinstance(events[-1], Done)
        await turn(agent, "Et ?", events[-1].session)
    assert [b.get("think") for b in server.chat_requests] == [True, None, None]
    assert not any(isinstance(e, Error) for e in events)
    assert any(isinstance(e, Notice) and "Réflexion est ignorée" in e.message for e in events)


async def test_a_reply_that_only_thinks_says_the_model_answered_nothing(
    store: History, workspace: Path
) -> None:
    async with served({"qwen3:8b": QWEN3}) as (server, backend):
        server.script(Reply.thinks(["hmm…"]))
        agent = make_agent(backend, store, workspace, Settings(model="qwen3:8b"), skills=False)
        events = await turn(agent, "Bonjour")
    errors = [e.message for e in events if isinstance(e, Error)]
    assert errors == ["Le modèle n'a rien répondu. Réessayez, ou reformulez votre message."]
    assert isinstance(events[-1], Done)
    assert events[-1].reason == "error"
    assert events[-1].session is not None
    kept = store.messages(events[-1].session)[-1]
    assert (kept.role, kept.content, kept.thinking, kept.cut) == ("assistant", "", "hmm…", True)
