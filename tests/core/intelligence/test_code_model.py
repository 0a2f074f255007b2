"""The code model: a code turn (a code skill picked before it) runs on its own model."""

from __future__ import annotations

from pathlib import Path

from loki_desktop.core.events import SkillUsed, event_to_json
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent, turn
from tests.fakes.ollama_server import FakeOllama, Reply

CHAT, CODER = "llama3.1:8b", "qwen2.5-coder:7b"
DEBUG_REQUEST = "Mon script plante avec une TypeError, corrige-le"


async def test_a_code_turn_runs_on_the_code_model_and_the_badge_names_it(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text("Voyons la trace."), Reply.text("Bonjour !"))
    settings = Settings(model=CHAT, code_model=CODER)
    events = await turn(make_agent(backend, store, workspace, settings), DEBUG_REQUEST)
    (badge,) = [e for e in events if isinstance(e, SkillUsed)]
    assert (badge.name, badge.model) == ("debogage-systematique", CODER)
    assert event_to_json(badge)["model"] == CODER
    # the badge comes back with a reopened conversation
    conversation = next(iter(store.list_conversations())).id
    user = next(m for m in store.messages(conversation) if m.role == "user")
    assert user.meta.skill is not None
    assert user.meta.skill.model == CODER

    await turn(make_agent(backend, store, workspace, settings), "bonjour")
    assert [r["model"] for r in ollama.chat_requests] == [CODER, CHAT]


async def test_without_a_code_model_a_code_turn_stays_on_the_chat_model(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text("Voyons la trace."))
    events = await turn(make_agent(backend, store, workspace, Settings(model=CHAT)), DEBUG_REQUEST)
    (badge,) = [e for e in events if isinstance(e, SkillUsed)]
    assert badge.model == ""
    assert "model" not in event_to_json(badge)
    assert [r["model"] for r in ollama.chat_requests] == [CHAT]
