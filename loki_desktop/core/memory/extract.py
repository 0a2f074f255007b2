"""Facts worth remembering, taken from a finished conversation by one call to the model.

    kept = await extract(memories, backend, model, messages, conversation_id)
    kept -> [Memorised(id, text), ...]   each shown to the person, with *Oublier*

Only what the person said about themselves, their setup, their preferences lasts; the model
answers a JSON array of short sentences (read with json_repair: small models wrap it in
prose or break it). Each fact goes through the same filter as a memory asked for: a secret
is never kept, the same text is kept once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import json_repair

from loki_desktop.core.events import Memorised
from loki_desktop.core.memory.recall import Memories
from loki_desktop.core.memory.remember import keep
from loki_desktop.core.messages import ChatMessage
from loki_desktop.core.ports import BackendError, ChatBackend

MAX_FACTS = 5
MAX_FACT_CHARS = 300
# what the model reads of the conversation: its end matters most (the beginning is cut)
MAX_TRANSCRIPT_CHARS = 12_000

EXTRACT_PROMPT = """\
Read the conversation below between a user and an assistant. List the durable facts about \
the USER that would help in later, unrelated conversations: their machines and setup, \
their preferences, the names of people, pets, projects and places in their life, their \
recurring needs. Only what the user stated; nothing about this conversation's task alone; \
never a password, token or key. Write each fact as one short sentence in the user's \
language. Answer with a JSON array of strings only, or [] when there is none.

Conversation:
{transcript}
"""


def transcript_of(messages: Sequence[ChatMessage]) -> str:
    """The person's and the assistant's words (no tool traffic), the end kept."""
    lines = [
        f"{message.role.upper()}: {message.content.strip()}"
        for message in messages
        if message.role in ("user", "assistant") and message.content.strip()
    ]
    text = "\n".join(lines)
    return text[-MAX_TRANSCRIPT_CHARS:]


def facts_of(answer: str) -> list[str]:
    """The facts of the model's answer (an array somewhere in it), cleaned and capped."""
    start, end = answer.find("["), answer.rfind("]")
    if start < 0 or end <= start:
        return []
    try:
        value: Any = json_repair.loads(answer[start : end + 1])
    except (ValueError, RecursionError):
        return []
    if not isinstance(value, list):
        return []
    facts = []
    for item in value:
        if isinstance(item, str) and (fact := " ".join(item.split())):
            facts.append(fact[:MAX_FACT_CHARS])
    return list(dict.fromkeys(facts))[:MAX_FACTS]


async def ask_model(backend: ChatBackend, model: str, prompt: str) -> str:
    """One request, no tools; the answer's text (raises BackendError)."""
    parts = []
    messages = [{"role": "user", "content": prompt}]
    async for chunk in backend.chat(
        model=model, messages=messages, tools=[], options={"temperature": 0}
    ):
        parts.append(chunk.content)
    return "".join(parts)


async def extract(
    memories: Memories,
    backend: ChatBackend,
    model: str,
    messages: Sequence[ChatMessage],
    conversation_id: str | None = None,
) -> list[Memorised]:
    """Ask the model for the conversation's lasting facts and keep them; [] when there is
    nothing to read or the model fails (a failed extraction never loses anything)."""
    if sum(1 for m in messages if m.role == "user" and m.origin == "user") == 0:
        return []
    prompt = EXTRACT_PROMPT.format(transcript=transcript_of(messages))
    try:
        answer = await ask_model(backend, model, prompt)
    except BackendError:
        return []
    kept: list[Memorised] = []
    for fact in facts_of(answer):
        result = await keep(memories, fact, source="extracted", conversation_id=conversation_id)
        if result.memory is not None and not result.existed:
            kept.append(Memorised(result.memory.id, result.memory.text))
    return kept
