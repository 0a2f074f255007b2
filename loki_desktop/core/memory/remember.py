"""Keeping a memory: what a message asks Loki to remember, refused when it holds a secret.

    asked_to_remember("Retiens que mon serveur de prod tourne sur Debian 12")
        -> "mon serveur de prod tourne sur Debian 12"
    asked_to_remember("remember that the NAS is at 10.0.0.7") -> "the NAS is at 10.0.0.7"
    asked_to_remember("je me souviens de ce film") -> None

A memory is kept in the person's words and given to the model in later turns: a password or
a token has no place there (it would be sent again and again, and stored in clear). The
secret filter of the MCP settings (core.mcp.secret_values) decides; such a memory is refused
with a sentence that says where secrets go.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass

from loki_desktop.core.i18n import _
from loki_desktop.core.mcp.secret_values import holds_secret
from loki_desktop.core.memory.embedders import EmbedFailed
from loki_desktop.core.memory.recall import Memories
from loki_desktop.core.memory.terms import terms
from loki_desktop.core.ports import Memory, MemorySource

MAX_MEMORY_CHARS = 2_000

# "retiens que X", "retenez bien que X", "souviens-toi que X", "n'oublie pas que X",
# "mémorise : X", "remember that X", "please remember: X", "don't forget that X", "note
# that X" is left out: it is as often about the answer ("note that the list is empty").
_ASKED = re.compile(
    r"""^\s*(?:(?:s'il te pla[iî]t|stp|please|peux-tu|can you|could you)[\s,]+)?
    (?:
        (?:retiens|retenez|m[ée]morise[sz]?)(?:\s+bien)?(?:\s+que\s+|\s*:\s*|\s+(?!que\b))
      | (?:souviens-toi|souvenez-vous|rappelle-toi)(?:\s+que\s+|\s*:\s*)
      | n'oublie(?:z)?\s+pas\s+que\s+
      | remember(?:\s+that\s+|\s*:\s*)
      | (?:do\s+not|don't)\s+forget(?:\s+that\s+|\s*:\s*)
      | keep\s+in\s+mind(?:\s+that\s+|\s*:\s*)
    )(?P<fact>.+)$""",
    re.IGNORECASE | re.VERBOSE | re.DOTALL,
)


def asked_to_remember(message: str) -> str | None:
    """The fact a message asks to remember, or None when it asks nothing of the kind."""
    match = _ASKED.match(message)
    if match is None:
        return None
    fact = match["fact"].strip().rstrip(".!").strip()
    return fact or None


@dataclass(frozen=True, slots=True)
class Kept:
    """A memory kept (`memory`), or the sentence saying why it was not (`refusal`)."""

    memory: Memory | None = None
    refusal: str = ""
    existed: bool = False  # the same text was kept already
    secret: bool = False  # refused because it holds a secret


def refusal_of(text: str) -> str | None:
    """Why `text` cannot be a memory (French), or None when it can."""
    if not text.strip():
        return _("Un souvenir ne peut pas être vide.")
    if len(text) > MAX_MEMORY_CHARS:
        return _("Un souvenir tient en {n} caractères au plus.").format(n=MAX_MEMORY_CHARS)
    if holds_secret(text):
        return _(
            "Ce souvenir n'est pas gardé : il contient un secret (mot de passe, jeton, clé). "
            "Les secrets vont dans le trousseau du système, par les réglages des serveurs, "
            "jamais dans les souvenirs."
        )
    return None


async def keep(
    memories: Memories,
    text: str,
    *,
    source: MemorySource,
    conversation_id: str | None = None,
) -> Kept:
    """Store `text` as a memory (once) and embed it when an embedder is there; the vector
    can also come later (Memories.backfill), so an embedder failure never loses the text."""
    text = text.strip()
    refusal = refusal_of(text)
    if refusal is not None:
        return Kept(refusal=refusal, secret=holds_secret(text))
    store = await asyncio.to_thread(memories.store)
    same = await asyncio.to_thread(store.find_text, text)
    if same is not None:
        return Kept(memory=same, existed=True)
    memory = await asyncio.to_thread(
        lambda: store.add(
            text, " ".join(terms(text)), source=source, conversation_id=conversation_id
        )
    )
    embedder = await memories.embedders.active(store)
    if embedder is not None:
        try:
            await memories.embed_into(store, embedder, [memory])
        except EmbedFailed as exc:
            memories.embedders.failed(exc)
    return Kept(memory=memory)


async def change(memories: Memories, memory_id: int, text: str) -> Kept:
    """Give a memory another text (refused like a new one); its vector is made again."""
    text = text.strip()
    refusal = refusal_of(text)
    if refusal is not None:
        return Kept(refusal=refusal)
    store = await asyncio.to_thread(memories.store)
    memory = await asyncio.to_thread(store.update, memory_id, text, " ".join(terms(text)))
    if memory is None:
        return Kept(refusal=_("Aucun souvenir n° {id}.").format(id=memory_id))
    embedder = await memories.embedders.active(store)
    if embedder is not None:
        try:
            await memories.embed_into(store, embedder, [memory])
        except EmbedFailed as exc:
            memories.embedders.failed(exc)
    return Kept(memory=memory)
