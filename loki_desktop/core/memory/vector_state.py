"""Which embedder a process uses (the server's model, else the embedded one, else words), and
the memories' vectors held in memory between two questions.

The server's model is tried once (one short request); a 404 or no answer moves to the
embedded model, said once. A server whose model now gives vectors of another size (the
person pulled another `embeddinggemma`) gets its old vectors dropped and re-made.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from loki_desktop.core.i18n import _
from loki_desktop.core.memory.embedders import EmbeddedEncoder, Embedder, EmbedFailed
from loki_desktop.core.ports import VectorRows

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

PROBE_TIMEOUT_S = 3.0


class VectorSource(Protocol):
    """Where vectors are kept (the memories, a workspace's index)."""

    def version(self) -> int: ...

    def vectors(self, model: str) -> VectorRows: ...

    def drop_vectors(self, model: str) -> None: ...


def embedded_if_installed() -> Embedder | None:
    return EmbeddedEncoder() if EmbeddedEncoder.available() else None


class EmbedderChoice:
    """The embedder of this process: `primary` (the server's) when it answers, else the
    one `fallback` makes, else None (words only)."""

    def __init__(
        self,
        primary: Embedder | None,
        fallback: Callable[[], Embedder | None] = embedded_if_installed,
    ) -> None:
        self.primary = primary
        self._fallback = fallback
        self._chosen: Embedder | None = None
        self._decided = False
        self._lock = asyncio.Lock()
        self._notices: list[str] = []
        self._said: set[str] = set()

    @property
    def chosen(self) -> Embedder | None:
        return self._chosen if self._decided else None

    async def active(self, store: VectorSource) -> Embedder | None:
        """The embedder to use (decided at the first call; it may load the embedded model on
        a worker thread)."""
        async with self._lock:
            if not self._decided:
                self._chosen = await self._choose()
                self._decided = True
                if self._chosen is not None:
                    await self._check_size(store, self._chosen)
            return self._chosen

    async def _choose(self) -> Embedder | None:
        if self.primary is not None:
            try:
                await asyncio.wait_for(self.primary.embed(["probe"]), PROBE_TIMEOUT_S)
                return self.primary
            except (EmbedFailed, TimeoutError) as exc:
                self._say(_fallback_notice(exc))
        fallback = self._fallback()
        if fallback is None:
            self._say(words_only_notice())
        return fallback

    async def _check_size(self, store: VectorSource, embedder: Embedder) -> None:
        rows = await asyncio.to_thread(store.vectors, embedder.name)
        if not rows.ids:
            return
        probe = await embedder.embed(["probe"])
        if probe.shape[1] != rows.dim:
            await asyncio.to_thread(store.drop_vectors, embedder.name)
            self._say(
                _(
                    "Le modèle d'embeddings donne maintenant des vecteurs de {new} dimensions "
                    "(et non {old}) : les souvenirs sont ré-encodés en arrière-plan."
                ).format(new=probe.shape[1], old=rows.dim)
            )

    def failed(self, exc: BaseException) -> None:
        """The chosen embedder failed on a question: that question goes on with words; a
        server that fails is left for the embedded model from the next one."""
        if self._chosen is self.primary and self.primary is not None:
            self._say(_fallback_notice(exc))
            self._chosen = self._fallback()
            if self._chosen is None:
                self._say(words_only_notice())

    async def warm(self) -> None:
        """Load the embedded model now (on a worker thread), if it is the one in use."""
        chosen = self.chosen
        if isinstance(chosen, EmbeddedEncoder) and not EmbeddedEncoder.loaded():
            await asyncio.to_thread(EmbeddedEncoder.load)

    def take_notices(self) -> list[str]:
        notices, self._notices = self._notices, []
        return notices

    def _say(self, notice: str) -> None:
        if notice not in self._said:  # each said once a process
            self._said.add(notice)
            self._notices.append(notice)

    async def aclose(self) -> None:
        for embedder in {id(e): e for e in (self.primary, self._chosen) if e}.values():
            await embedder.aclose()


def words_only_notice() -> str:
    return _(
        "Souvenirs cherchés par mots seulement : aucun modèle d'embeddings n'est disponible "
        "(ni sur le serveur, ni intégré)."
    )


def _fallback_notice(exc: BaseException) -> str:
    reason = str(exc) or _("Le serveur d'embeddings ne répond pas à temps.")
    return _("{reason} Loki utilise son modèle d'embeddings intégré.").format(reason=reason)


class VectorCache:
    """One model's vectors as a matrix, read again only when the store changed."""

    def __init__(self) -> None:
        self._key: tuple[str, int] | None = None
        self._ids: NDArray[np.int64] | None = None
        self._matrix: NDArray[np.float32] | None = None
        self._lock = threading.Lock()

    def get(
        self, store: VectorSource, model: str
    ) -> tuple[NDArray[np.int64], NDArray[np.float32] | None]:
        with self._lock:
            key = (model, store.version())
            if key != self._key:
                rows = store.vectors(model)
                import numpy as np

                self._ids = np.array(rows.ids, dtype=np.int64)
                self._matrix = (
                    np.frombuffer(rows.data, dtype="<f4").reshape(len(rows.ids), rows.dim)
                    if rows.ids
                    else None
                )
                self._key = key
            assert self._ids is not None  # read above at the first call
            return self._ids, self._matrix
