"""How the word ranking and the vector ranking make one list of memories.

A plain reciprocal-rank fusion gives the word list's first place the weight of the vector
list's first place; on questions that use other words than the memory (most of them) the
word list's head is noise, and the fusion loses to the vectors alone. Here the vectors lead
and the words only add to them:

    score = cosine + WORDS * bm25 / best bm25 + EXACT * (an exact token of the question is in it)

so words break ties between memories the vectors find close, and an exact token (a plate,
an IP, a host, an invoice prefix: core.memory.terms) lifts the one memory holding it past
any paraphrase. Without vectors the words rank alone, still lifted by exact tokens.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

# Weights chosen from the shape of the scores (cosine ~0.1 unrelated, ~0.5 close, bm25
# divided by its best is 0..1), then checked on the development set of tests/core/memory.
WORDS = 0.15
EXACT = 0.35
# Below this a memory is not about the message: on the development set, greetings and
# unrelated requests score 0.08-0.21 against every memory ("bonjour" recalls nothing), the
# right memory of a paraphrase 0.24-0.96.
MIN_WITH_VECTORS = 0.22
MIN_WORDS_ONLY = 0.3


@dataclass(frozen=True, slots=True)
class Scored:
    memory_id: int
    score: float


def fuse(
    words: Mapping[int, float],
    cosines: Mapping[int, float] | None,
    exact: Collection[int],
    limit: int,
) -> list[Scored]:
    """The best `limit` memories above the threshold. `words`: bm25 scores (higher is better)
    of the memories holding a word of the question; `cosines`: the cosine of every candidate
    (None: no vectors); `exact`: the memories holding an exact token of the question."""
    best_words = max(words.values(), default=0.0) or 1.0
    candidates = set(words) | set(exact) | set(cosines or ())
    scored: list[Scored] = []
    for memory_id in candidates:
        word_part = words.get(memory_id, 0.0) / best_words
        exact_part = EXACT if memory_id in exact else 0.0
        if cosines is None:
            score, floor = word_part + exact_part, MIN_WORDS_ONLY
        else:
            score = cosines.get(memory_id, 0.0) + WORDS * word_part + exact_part
            floor = MIN_WITH_VECTORS
        if score >= floor:
            scored.append(Scored(memory_id, score))
    scored.sort(key=lambda item: (-item.score, -item.memory_id))
    return scored[:limit]
