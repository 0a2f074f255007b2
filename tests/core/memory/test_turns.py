"""Memories in a turn: kept when asked, recalled into the system prompt, off means off."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from loki_desktop.core.events import Memorised, Notice, Recalled, event_to_json
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.memory.embedders import ServerEmbedder
from loki_desktop.core.memory.recall import Memories
from loki_desktop.core.memory.vector_state import EmbedderChoice
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from loki_desktop.persistence.memory_store import MemoryFile
from tests.agent_rig import make_agent, turn
from tests.fakes.ollama_server import FakeOllama, Reply


@pytest.fixture
async def memories(ollama: FakeOllama, tmp_path: Path) -> AsyncIterator[Memories]:
    """Memories in tmp_path/memories.db, embedded by the scripted server."""
    primary = ServerEmbedder("ollama", ollama.url, "qwen2.5-coder:7b")
    path = tmp_path / "memories.db"
    kept = Memories(lambda: MemoryFile(path), EmbedderChoice(primary, fallback=lambda: None))
    yield kept
    await kept.aclose()


def _system(request: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in request["messages"] if m["role"] == "system")


async def test_a_fact_told_once_is_recalled_in_a_later_conversation(
    ollama: FakeOllama,
    backend: OllamaBackend,
    store: History,
    workspace: Path,
    memories: Memories,
) -> None:
    ollama.script(Reply.text("C'est noté."), Reply.text("Debian 12, port 8443."))
    agent = make_agent(backend, store, workspace, memories=memories)
    told = await turn(agent, "Retiens que mon serveur de prod tourne sur Debian 12, port 8443")
    kept = [e for e in told if isinstance(e, Memorised)]
    assert [e.text for e in kept] == ["mon serveur de prod tourne sur Debian 12, port 8443"]
    assert not any(isinstance(e, Recalled) for e in told)
    assert "just asked you to remember" in _system(ollama.chat_requests[0])

    later = make_agent(backend, store, workspace, memories=memories)
    asked = await turn(later, "Sur quel port tourne mon serveur de production ?")
    recalled = [e for e in asked if isinstance(e, Recalled)]
    assert len(recalled) == 1
    assert recalled[0].items[0].id == kept[0].id
    assert event_to_json(recalled[0])["type"] == "recall"
    system = _system(ollama.chat_requests[1])
    assert "Debian 12, port 8443" in system
    # the recall is for this turn only: the history keeps the person's words
    stored = store.messages(agent.last_conversation or "")
    assert all("earlier conversations" not in m.content for m in stored)


async def test_a_secret_is_not_kept_and_the_turn_goes_on(
    ollama: FakeOllama,
    backend: OllamaBackend,
    store: History,
    workspace: Path,
    memories: Memories,
) -> None:
    ollama.script(Reply.text("Je ne garde pas les secrets."))
    agent = make_agent(backend, store, workspace, memories=memories)
    events = await turn(agent, "Retiens que mon token GitHub est ghp_abcdefghijklmnopqrstuvwx")
    assert not any(isinstance(e, Memorised) for e in events)
    assert any(isinstance(e, Notice) and "secret" in e.message for e in events)
    assert memories.store().count() == 0
    assert "NOT saved" in _system(ollama.chat_requests[0])
    assert event_to_json(events[-1])["reason"] == "completed"


async def test_memories_off_open_nothing_and_embed_nothing(
    ollama: FakeOllama,
    backend: OllamaBackend,
    store: History,
    workspace: Path,
    memories: Memories,
    tmp_path: Path,
) -> None:
    path = tmp_path / "memories.db"
    ollama.script(Reply.text("D'accord."))
    agent = make_agent(
        backend, store, workspace, settings=Settings(memories=False), memories=memories
    )
    events = await turn(agent, "Retiens que je préfère le thé")
    assert not any(isinstance(e, Memorised | Recalled) for e in events)
    assert not path.exists()
    assert ollama.embed_requests == []
    assert "remember" not in _system(ollama.chat_requests[0])


async def test_a_store_that_cannot_open_never_fails_the_turn(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "not-a-folder"
    folder.write_text("a file where the memories' folder should be")
    broken = Memories(lambda: MemoryFile(folder / "memories.db"), EmbedderChoice(None))
    ollama.script(Reply.text("Bonjour !"))
    agent = make_agent(backend, store, workspace, memories=broken)
    events = await turn(agent, "Bonjour")
    assert event_to_json(events[-1])["reason"] == "completed"
    assert any(isinstance(e, Notice) and "Souvenirs non consultés" in e.message for e in events)
    assert not any(isinstance(e, Recalled) for e in events)
