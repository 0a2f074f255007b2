"""memories.db: text, the FTS5 index of terms, vectors per model; corruption moved aside."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from loki_desktop.core.memory.terms import terms
from loki_desktop.persistence.memory_store import MemoryFile


def _add(store: MemoryFile, text: str) -> int:
    return store.add(text, " ".join(terms(text)), source="typed").id


def test_add_search_update_delete(tmp_path: Path) -> None:
    store = MemoryFile(tmp_path / "memories.db")
    prod = _add(store, "Mon serveur de prod tourne sur Debian 12, port 8443")
    cat = _add(store, "Mon chat s'appelle Moustache")
    assert [m.id for m in store.recent()] == [cat, prod]  # the newest first
    assert store.count() == 2
    assert [i for i, _ in store.search_terms(terms("les serveurs Debian"), 5)] == [prod]
    before = store.version()
    store.put_vectors("m", 2, [(prod, b"\x00" * 8)])
    assert store.vectors("m").ids == (prod,)
    changed = store.update(prod, "Le serveur de prod est sous Ubuntu 24.04", "serveur ubuntu")
    assert changed is not None
    assert changed.text.startswith("Le serveur")
    assert store.version() != before
    assert store.vectors("m").ids == ()  # a new text needs a new vector
    assert store.search_terms(["debian"], 5) == []
    assert [i for i, _ in store.search_terms(["ubuntu"], 5)] == [prod]
    assert store.delete(cat)
    assert not store.delete(cat)
    assert store.search_terms(terms("Moustache"), 5) == []
    assert store.find_text("Le serveur de prod est sous Ubuntu 24.04") is not None
    store.close()


def test_vectors_of_a_deleted_memory_are_not_kept(tmp_path: Path) -> None:
    store = MemoryFile(tmp_path / "memories.db")
    kept = _add(store, "un")
    gone = _add(store, "deux")
    store.delete(gone)
    store.put_vectors("m", 1, [(kept, b"\x00" * 4), (gone, b"\x00" * 4)])
    assert store.vectors("m").ids == (kept,)
    assert [m.id for m in store.without_vectors("other", 10)] == [kept]
    store.drop_vectors("m")
    assert store.vectors("m").ids == ()


def test_a_corrupt_file_is_moved_aside_and_a_new_one_made(tmp_path: Path) -> None:
    path = tmp_path / "memories.db"
    path.write_bytes(b"this is not a database" * 200)
    store = MemoryFile(path)
    notices = store.take_notices()
    assert len(notices) == 1
    assert "mis de côté" in notices[0]
    assert store.count() == 0
    aside = [p for p in tmp_path.iterdir() if ".corrupt-" in p.name]
    assert len(aside) == 1
    assert aside[0].read_bytes().startswith(b"this is not")
    _add(store, "de nouveau")
    assert store.count() == 1
    store.close()


def test_an_fts_index_out_of_step_is_corruption_too(tmp_path: Path) -> None:
    path = tmp_path / "memories.db"
    store = MemoryFile(path)
    _add(store, "Mon serveur tourne sur Debian")
    store.close()
    raw = sqlite3.connect(path)
    raw.execute("DROP TRIGGER memories_au")
    raw.execute("UPDATE memories SET terms = 'autre chose'")
    raw.commit()
    raw.close()
    again = MemoryFile(path)
    assert any("illisible" in notice for notice in again.take_notices())
    assert again.count() == 0
    again.close()


def test_ten_thousand_memories(tmp_path: Path) -> None:
    store = MemoryFile(tmp_path / "memories.db")
    for n in range(10_000):
        store.add(f"souvenir {n} code K{n:05d}", f"souvenir {n} k{n:05d}", source="typed")
    assert store.count() == 10_000
    hits = store.search_terms(["k04242"], 5)
    assert len(hits) == 1
    assert store.get(hits[0][0]).text.endswith("K04242")
    assert len(store.without_vectors("m", 64)) == 64
    store.close()


def test_a_newer_schema_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "memories.db"
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA user_version = 99")
    raw.close()
    from loki_desktop.core.ports import StoreUnavailable

    with pytest.raises(StoreUnavailable, match="plus récent"):
        MemoryFile(path)
    assert path.exists()
