"""What a turn does with memories: keep what the message asks to remember, recall the rest,
and the text the model reads about them (this turn only, never stored in the history).

    memory = TurnMemory.start(memories, text, conversation_id)   # recall starts at once
    async for event in memory.events(): ...     # Memorised / a refusal, then Recalled
    memory.system_text()                        # the block added to the system prompt
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from loki_desktop.core.events import Event, Memorised, Notice, Recalled
from loki_desktop.core.memory.recall import Memories, Recall
from loki_desktop.core.memory.remember import Kept, asked_to_remember, keep
from loki_desktop.core.ports import StoreUnavailable

RECALLED_PART = """\
What you know about the user from earlier conversations (their own words; use it when it \
helps, never say where it comes from unless asked):
{lines}
"""
KEPT_PART = """\
The user just asked you to remember this, and it is now saved for later conversations: \
{text}
Confirm it in one short sentence.
"""
REFUSED_PART = """\
The user asked you to remember something that holds a secret; it was NOT saved. Say so \
in one sentence and suggest keeping secrets in a password manager.
"""


@dataclass
class TurnMemory:
    memories: Memories
    text: str
    conversation_id: str | None
    recall_task: asyncio.Task[Recall] | None = None
    recall: Recall = field(default_factory=Recall)
    fact: str | None = None  # what the message asks to remember
    kept: str = ""
    refused: bool = False

    @classmethod
    def start(
        cls, memories: Memories, text: str, conversation_id: str | None, *, keep_asked: bool
    ) -> TurnMemory:
        """Begin: the recall runs in its own task while the turn gets its tools and model
        ready. `keep_asked` False (a retry): what the message asks to remember was kept the
        first time."""
        turn = cls(memories, text, conversation_id)
        turn.fact = asked_to_remember(text) if keep_asked else None
        # a message that only says "remember that X" needs no recall of X
        if asked_to_remember(text) is None:
            turn.recall_task = asyncio.create_task(memories.recall(text))
        return turn

    async def events(self) -> AsyncIterator[Event]:
        """The memory kept (or refused), then the memories recalled; never raises."""
        if self.fact is not None:
            kept = await self._keep(self.fact)
            if kept.memory is not None:
                self.kept = kept.memory.text
                yield Memorised(kept.memory.id, kept.memory.text)
            else:
                self.refused = kept.secret
                yield Notice(kept.refusal, "memory_refused")
        if self.recall_task is not None:
            self.recall = await self.recall_task
            for notice in self.recall.notices:
                yield Notice(notice, "memory_recall")
            if self.recall.items:
                yield Recalled(self.recall.items, self.recall.vectors)
        else:
            for notice in self.memories.take_notices():
                yield Notice(notice, "memory_recall")

    async def _keep(self, fact: str) -> Kept:
        try:
            return await keep(
                self.memories, fact, source="asked", conversation_id=self.conversation_id
            )
        except (StoreUnavailable, OSError) as exc:  # the turn goes on; the person is told
            return Kept(refusal=str(exc))

    def system_text(self) -> str:
        parts = []
        if self.recall.items:
            lines = "\n".join(f"- {item.text}" for item in self.recall.items)
            parts.append(RECALLED_PART.format(lines=lines))
        if self.kept:
            parts.append(KEPT_PART.format(text=self.kept))
        if self.refused:
            parts.append(REFUSED_PART)
        return "\n".join(parts)

    def cancel(self) -> None:
        """The turn ended before the recall was used (Stop, an error): let it go."""
        if self.recall_task is not None and not self.recall_task.done():
            self.recall_task.cancel()
