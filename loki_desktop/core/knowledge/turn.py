"""The workspace's best passages given to the model when a message asks about the workspace.

passages = TurnPassages.start(knowledge, text)   # None: the message is not about it
async for event in passages.events(): ...        # Recalled (items with path and line)
passages.system_text()                           # this turn only, never stored
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

from loki_desktop.core.events import Event, Recalled, RecalledItem
from loki_desktop.core.knowledge.index import Hit, Knowledge

RECALLED = 3
# Words of a message about the person's own files ("où ai-je noté…", "dans mes notes",
# "which file…", "in my project"), accents optional.
_ABOUT_FILES = re.compile(
    r"""\b(?:
        o[uù]\s+(?:ai-je|j'ai|est-ce\s+que\s+j'ai)\s+(?:not[ée]|[ée]crit|mis|rang[ée]|sauv[ée])
      | dans\s+(?:mes|mon|ma|le|les|ce)\s+
        (?:notes?|fichiers?|dossiers?|documents?|projet|docs?|code)
      | quel(?:le)?s?\s+fichiers?
      | where\s+(?:did|do)\s+I\s+(?:note|write|put|keep|save)
      | in\s+(?:my|the|this)\s+
        (?:notes?|files?|folder|documents?|project|docs?|code(?:base)?|workspace)
      | which\s+files?
      | workspace | espace\s+de\s+travail | dossier\s+de\s+travail
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)

PASSAGES_PART = """\
Passages of the user's workspace files that may answer (file:line), found by a search; \
cite the file when you use one:
{passages}
"""


def asks_about_workspace(text: str) -> bool:
    return bool(_ABOUT_FILES.search(text))


@dataclass
class TurnPassages:
    task: asyncio.Task[list[Hit]]
    hits: tuple[Hit, ...] = ()

    @classmethod
    def start(cls, knowledge: Knowledge, text: str) -> TurnPassages | None:
        if not asks_about_workspace(text):
            return None
        return cls(asyncio.create_task(_search(knowledge, text)))

    async def events(self) -> AsyncIterator[Event]:
        self.hits = tuple(await self.task)
        if self.hits:
            items = tuple(
                RecalledItem(0, hit.text, hit.score, path=hit.path, line=hit.line)
                for hit in self.hits
            )
            yield Recalled(items, "")

    def system_text(self) -> str:
        if not self.hits:
            return ""
        shown = "\n\n".join(f"{hit.path}:{hit.line}:\n{hit.text}" for hit in self.hits)
        return PASSAGES_PART.format(passages=shown)

    def cancel(self) -> None:
        if not self.task.done():
            self.task.cancel()


async def _search(knowledge: Knowledge, text: str) -> list[Hit]:
    """The best passages (never raises: a failed search gives none)."""
    try:
        if not knowledge.building:  # files saved since the last turn are found too
            await knowledge.update()
        return await knowledge.search(text, RECALLED)
    except asyncio.CancelledError:
        raise
    except Exception:  # the turn goes on without passages, the tool can still search
        return []
