"""A workspace's knowledge: its index kept up to date, searched like memories, and the
`search_workspace` tool the agent gets.

    knowledge = Knowledge(root, open_store, embedders)
    await knowledge.update(progress)      # only files changed since the last update are read
    await knowledge.search("mot de passe du wifi")  -> [Hit(path, line, text, score)]

Each turn's `prepare` updates the index (a walk of stats when nothing changed), so files the
person saved since are found; a file deleted is dropped, one changed is read again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field

from loki_desktop.core.i18n import _, ngettext
from loki_desktop.core.knowledge.files import FileState, passages, read_text, scan, states_of
from loki_desktop.core.memory.embedders import EmbedFailed
from loki_desktop.core.memory.fusion import fuse
from loki_desktop.core.memory.terms import exact_tokens, terms
from loki_desktop.core.memory.vector_state import EmbedderChoice, VectorCache
from loki_desktop.core.ports import PassageStore, ToolOutcome, ToolSpec
from loki_desktop.core.tools.args import ToolArgs, schema_of

Progress = Callable[[int, int], None]  # files read so far, files to read
SEARCH_LIMIT = 5
CANDIDATES = 50
EMBED_BATCH = 64


@dataclass(frozen=True, slots=True)
class Hit:
    path: str
    line: int
    text: str
    score: float


class Knowledge:
    """One workspace's index (opened on first use) and the embedder shared with memories."""

    def __init__(
        self, root: Path, open_store: Callable[[], PassageStore], embedders: EmbedderChoice
    ) -> None:
        self.root = root
        self._open_store = open_store
        self._store: PassageStore | None = None
        self.embedders = embedders
        self._cache = VectorCache()
        self.notices: list[str] = []
        self._lock = asyncio.Lock()
        self._building = False
        # True while the workspace watcher reports changes (`changed`): once the folder was
        # walked in full, an update reads only the paths it reported
        self.fed = False
        self._walked = False
        self._dirty: set[str] = set()
        self.passages = 0  # in the index after the last update (0: nothing to search)

    async def store(self) -> PassageStore:
        if self._store is None:
            self._store = await asyncio.to_thread(self._open_store)
            self.notices += self._store.take_notices()
        return self._store

    @property
    def building(self) -> bool:
        """A background build runs (the window's): a turn searches what is indexed so far
        rather than wait for it."""
        return self._building

    async def update(
        self, progress: Progress | None = None, embed_batches: int = 2, *, background: bool = False
    ) -> int:
        """Read the files changed since the last update, drop the deleted ones, embed up to
        `embed_batches` batches of passages still without a vector (the rest at the next
        update; words find them meanwhile); returns how many files were read. One update at
        a time."""
        async with self._lock:
            self._building = background
            try:
                return await self._update(progress, embed_batches)
            finally:
                self._building = False

    @property
    def reported(self) -> int:
        """Paths the watcher reported since the last update."""
        return len(self._dirty)

    def changed(self, path: Path) -> None:
        """The watcher saw `path` change (saved, created, deleted, moved)."""
        try:
            self._dirty.add(path.resolve().relative_to(self.root).as_posix())
        except (ValueError, OSError):
            return  # outside the workspace

    async def _update(self, progress: Progress | None, embed_batches: int) -> int:
        store = await self.store()
        known = await asyncio.to_thread(store.files)
        dirty, self._dirty = self._dirty, set()
        if self.fed and self._walked:  # only what the watcher reported
            found = await asyncio.to_thread(lambda: list(states_of(self.root, dirty)))
            gone = {p for p in dirty if p in known} - {s.path for s in found}
        else:
            found = await asyncio.to_thread(lambda: list(scan(self.root)))
            gone = set(known) - {s.path for s in found}
        changed = [s for s in found if known.get(s.path) != (s.mtime, s.size)]
        for path in gone:
            await asyncio.to_thread(store.remove, path)
        for done, state in enumerate(changed, 1):
            await asyncio.to_thread(self._index_file, store, state)
            if progress is not None:
                progress(done, len(changed))
        self._walked = True
        self.passages = await asyncio.to_thread(store.count)
        await self._embed_missing(store, embed_batches)
        return len(changed)

    def _index_file(self, store: PassageStore, state: FileState) -> None:
        text = read_text(self.root, state)  # None: binary, too big, gone meanwhile
        pieces = passages(text) if text is not None else []
        store.replace(
            state.path,
            state.mtime,
            state.size,
            [(line, body, " ".join(terms(f"{state.path} {body}"))) for line, body in pieces],
        )

    async def _embed_missing(self, store: PassageStore, batches: int) -> None:
        if not batches or not await asyncio.to_thread(store.count):
            return  # nothing to embed: the embedder is not even asked
        embedder = await self.embedders.active(store)
        for _batch in range(batches if embedder is not None else 0):
            assert embedder is not None
            waiting = await asyncio.to_thread(store.without_vectors, embedder.name, EMBED_BATCH)
            if not waiting:
                return
            try:
                vectors = await embedder.embed([p.text for p in waiting])
            except EmbedFailed as exc:
                self.embedders.failed(exc)
                return
            rows = [(p.id, vectors[i].astype("<f4").tobytes()) for i, p in enumerate(waiting)]
            await asyncio.to_thread(store.put_vectors, embedder.name, vectors.shape[1], rows)

    async def search(self, query: str, limit: int = SEARCH_LIMIT) -> list[Hit]:
        store = await self.store()
        words = dict(await asyncio.to_thread(store.search_terms, terms(query), CANDIDATES))
        cosines = await self._cosines(store, query)
        exact = await asyncio.to_thread(self._exact, store, query, set(words) | set(cosines or ()))
        hits = []
        for scored in fuse(words, cosines, exact, limit):
            passage = await asyncio.to_thread(store.passage, scored.memory_id)
            if passage is not None:
                hits.append(Hit(passage.path, passage.line, passage.text, round(scored.score, 3)))
        return hits

    async def _cosines(self, store: PassageStore, query: str) -> dict[int, float] | None:
        embedder = self.embedders.chosen
        if embedder is None:
            return None
        try:
            vector = (await asyncio.wait_for(embedder.embed([query]), 3.0))[0]
        except (EmbedFailed, TimeoutError):
            return None
        ids, matrix = await asyncio.to_thread(self._cache.get, store, embedder.name)
        if matrix is None or matrix.shape[1] != vector.shape[0]:
            return None
        import numpy as np

        sims = matrix @ vector
        top = np.argsort(-sims)[:CANDIDATES]
        return {int(ids[i]): float(sims[i]) for i in top}

    def _exact(self, store: PassageStore, query: str, candidates: set[int]) -> set[int]:
        wanted = exact_tokens(query)
        if not wanted:
            return set()
        hits = set()
        for pid in candidates:
            passage = store.passage(pid)
            if passage is not None and wanted & exact_tokens(passage.text):
                hits.add(pid)
        return hits

    async def aclose(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


class SearchArgs(ToolArgs):
    query: str = Field(description="What to look for, in words or as a question.")


class KnowledgeTools:
    """The `search_workspace` tool, as a ToolSource; `prepare` brings the index up to date."""

    def __init__(self, knowledge: Knowledge) -> None:
        self.knowledge = knowledge

    def owns(self, name: str) -> bool:
        return name == "search_workspace"

    async def prepare(self) -> list[str]:
        if self.knowledge.building:  # the window's build runs: search what is indexed so far
            return []
        try:
            read = await self.knowledge.update()
        except OSError as exc:
            return [_("Index du dossier non mis à jour : {error}").format(error=exc)]
        notices, self.knowledge.notices = self.knowledge.notices, []
        if read > 20:
            notices.append(
                ngettext(
                    "Index du dossier : {n} fichier lu.",
                    "Index du dossier : {n} fichiers lus.",
                    read,
                ).format(n=read)
            )
        return notices

    def specs(self) -> list[ToolSpec]:
        if not self.knowledge.passages:  # an empty folder: no tool that cannot find anything
            return []
        return [
            ToolSpec(
                "search_workspace",
                "Search the workspace's files by meaning or exact words; returns passages "
                "with file and line.",
                schema_of(SearchArgs),
            )
        ]

    async def call(self, name: str, args: dict[str, Any]) -> ToolOutcome:
        query = str(args.get("query", "")).strip()
        if name != "search_workspace" or not query:
            return ToolOutcome(False, "Error: give a query.", _("erreur"))
        hits = await self.knowledge.search(query)
        if not hits:
            return ToolOutcome(True, "No passage found.", _("aucun passage trouvé"))
        output = "\n\n".join(f"{hit.path}:{hit.line}:\n{hit.text}" for hit in hits)
        summary = ngettext("{n} passage trouvé", "{n} passages trouvés", len(hits)).format(
            n=len(hits)
        )
        return ToolOutcome(True, output, summary)

    async def aclose(self) -> None:
        await self.knowledge.aclose()
