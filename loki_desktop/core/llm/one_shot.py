"""One short request without tools, its whole answer read at once (a summary, a plan, a review)."""

from __future__ import annotations

from dataclasses import dataclass

from loki_desktop.core.llm.think_tags import ThinkTagSplitter
from loki_desktop.core.ports import ChatBackend


@dataclass(frozen=True, slots=True)
class OneShot:
    """The answer's text (reasoning left out) and the server's token counts."""

    text: str
    prompt_tokens: int = 0
    answer_tokens: int = 0


async def ask_once(
    backend: ChatBackend,
    *,
    model: str,
    system: str,
    user: str,
    options: dict[str, int],
) -> OneShot:
    """Send `system` + `user`, read the whole reply. Raises BackendError like any request.

    Thinking is not asked for (`think` left out: the model's default); reasoning a model
    streams or writes between `<think>` tags is dropped, only the answer counts."""
    splitter = ThinkTagSplitter()
    parts: list[str] = []
    prompt_tokens = answer_tokens = 0
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    async for chunk in backend.chat(model=model, messages=messages, tools=[], options=options):
        if chunk.content:
            parts += [text for reasoning, text in splitter.feed(chunk.content) if not reasoning]
        if chunk.done:
            prompt_tokens = chunk.prompt_eval_count or 0
            answer_tokens = chunk.eval_count or 0
    parts += [text for reasoning, text in splitter.finish() if not reasoning]
    return OneShot("".join(parts).strip(), prompt_tokens, answer_tokens)
