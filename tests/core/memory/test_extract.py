"""Facts taken from a finished conversation: one call to the model, each fact filtered."""

from __future__ import annotations

from pathlib import Path

from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.memory.extract import extract, facts_of
from loki_desktop.core.memory.recall import Memories
from loki_desktop.core.memory.vector_state import EmbedderChoice
from loki_desktop.core.messages import ChatMessage
from loki_desktop.persistence.memory_store import MemoryFile
from tests.fakes.ollama_server import FakeOllama, Reply

CONVERSATION = [
    ChatMessage("user", "Mon NAS Synology est en 10.0.0.7, peux-tu m'aider à le sauvegarder ?"),
    ChatMessage("assistant", "Bien sûr : utilisez Hyper Backup…"),
    ChatMessage("user", "Je préfère rsync, et mon mot de passe est password=Hunter22"),
]


def test_facts_are_read_from_prose_or_broken_json() -> None:
    assert facts_of('Voici : ["Le NAS est en 10.0.0.7", "Préfère rsync",] voilà') == [
        "Le NAS est en 10.0.0.7",
        "Préfère rsync",
    ]
    assert facts_of("[]") == []
    assert facts_of("rien à retenir") == []
    assert facts_of('["a", "a", 3, "  b  c "]') == ["a", "b c"]


async def test_the_facts_are_kept_once_and_a_secret_never(
    ollama: FakeOllama, backend: OllamaBackend, tmp_path: Path
) -> None:
    memories = Memories(
        lambda: MemoryFile(tmp_path / "memories.db"), EmbedderChoice(None, fallback=lambda: None)
    )
    answer = (
        '["Le NAS Synology est en 10.0.0.7", "Préfère rsync pour les sauvegardes", '
        '"Son mot de passe est password=Hunter22"]'
    )
    ollama.script(Reply.text(answer), Reply.text(answer))
    kept = await extract(memories, backend, "qwen2.5-coder:7b", CONVERSATION, "c1")
    assert [m.text for m in kept] == [
        "Le NAS Synology est en 10.0.0.7",
        "Préfère rsync pour les sauvegardes",
    ]
    request = ollama.chat_requests[0]
    assert request.get("tools") in (None, [])
    assert "10.0.0.7" in request["messages"][0]["content"]
    stored = memories.store().recent()
    assert {m.source for m in stored} == {"extracted"}
    assert {m.conversation_id for m in stored} == {"c1"}
    again = await extract(memories, backend, "qwen2.5-coder:7b", CONVERSATION, "c1")
    assert again == []  # the same facts are not kept twice
    assert memories.store().count() == 2
    await memories.aclose()


async def test_a_failing_model_keeps_nothing_and_raises_nothing(
    ollama: FakeOllama, backend: OllamaBackend, tmp_path: Path
) -> None:
    memories = Memories(
        lambda: MemoryFile(tmp_path / "memories.db"), EmbedderChoice(None, fallback=lambda: None)
    )
    ollama.script(Reply.http_error(500, "boom"))
    assert await extract(memories, backend, "qwen2.5-coder:7b", CONVERSATION) == []
    assert await extract(memories, backend, "qwen2.5-coder:7b", []) == []
    await memories.aclose()
