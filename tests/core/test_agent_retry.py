"""Retrying a turn after an error answers the user's own last message again."""

from __future__ import annotations

from pathlib import Path

from loki_desktop.core.events import Done, Error, SkillUsed, Token
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.messages import ChatMessage
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent, turn
from tests.fakes.ollama_server import FakeOllama, Reply

PROMPT = "Mon script plante avec une TypeError, aide-moi"
HARNESS_TEXT = "Analyse le fichier ventes.csv et calcule la moyenne par colonne"


async def test_retry_after_a_cut_stream_resends_the_question_without_the_cut_answer(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    agent = make_agent(backend, store, workspace)
    ollama.script(Reply.text("Je ", "regarde", cut_after=1), Reply.text("Voici la cause."))
    first = await turn(agent, PROMPT)
    assert isinstance(first[-2], Error)
    conversation = first[-1].session
    assert conversation is not None

    second = [event async for event in agent.retry_turn(conversation)]

    assert [e.text for e in second if isinstance(e, Token)] == ["Voici la cause."]
    assert isinstance(second[0], SkillUsed)  # routed again on the user's message
    assert isinstance(second[-1], Done)
    assert second[-1].reason == "completed"
    sent = ollama.chat_requests[1]["messages"]
    assert [m["role"] for m in sent] == ["system", "system", "user"]
    assert sent[-1]["content"] == PROMPT
    stored = [(m.role, m.content, m.cut) for m in store.messages(conversation)]
    assert stored == [
        ("user", PROMPT, False),
        ("assistant", "Je ", True),
        ("assistant", "Voici la cause.", False),
    ]


async def test_retry_routes_the_users_message_not_the_harness_follow_up(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    conversation = store.create("c")
    store.append(conversation, ChatMessage("user", PROMPT))
    store.append(conversation, ChatMessage("assistant", "Corrigé."))
    store.append(conversation, ChatMessage("user", HARNESS_TEXT, origin="harness"))
    agent = make_agent(backend, store, workspace)
    assert agent.pick_skill is not None
    assert agent.pick_skill(HARNESS_TEXT).name == "analyse-donnees"  # a different skill
    ollama.script(Reply.text("ok"))

    events = [event async for event in agent.retry_turn(conversation)]

    skills = [event.name for event in events if isinstance(event, SkillUsed)]
    assert skills == ["debogage-systematique"]
    assert ollama.chat_requests[0]["messages"][-1]["content"] == HARNESS_TEXT
