"""Assembles a streamed Chat Completions answer (SSE `data:` chunks) into the core's ChatChunks.

Shapes (OpenAI API reference, "The chat completion chunk object"; vLLM's protocol.py):
each event is `data: {"choices": [{"index": 0, "delta": {...}, "finish_reason": null}],
...}`; the stream ends with `data: [DONE]`. A delta may carry `content`, `reasoning_content`
(vLLM before 0.11, DeepSeek) or `reasoning` (vLLM 0.11+, OpenRouter), and `tool_calls`
pieces: the first piece of a call has its `index`, `id`, `type` and `function.name`, the next
ones only the `index` and a piece of `function.arguments` (a JSON string split anywhere).
Several calls interleave by index. With `stream_options.include_usage` the last chunk has
`choices: []` (or null) and `usage` {prompt_tokens, completion_tokens}.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from loki_desktop.core.ports import ChatChunk, NativeToolCall

DONE_MARK = "[DONE]"


class StreamError(Exception):
    """An `{"error": ...}` event inside the stream; `error` is its value as sent."""

    def __init__(self, error: Any) -> None:
        super().__init__(str(error))
        self.error = error


def sse_data(line: str) -> str | None:
    """The data of one SSE line (`data: ...`), None for comments, blank and other fields."""
    if not line.startswith("data:"):
        return None
    data = line[5:]
    return data[1:] if data.startswith(" ") else data


def _list(value: Any) -> list[Any]:
    """A field that should be a list; anything else (`"choices": true`) holds nothing."""
    return value if isinstance(value, list) else []


@dataclass
class _Call:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass
class DeltaAssembler:
    """Reads the stream's events one by one; `final()` gives the assembled tool calls."""

    calls: dict[int, _Call] = field(default_factory=dict)
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    events: int = 0  # data events seen (0 at the end: the server sent an empty body)
    ended: bool = False  # `[DONE]` arrived
    said_something: bool = False  # content, reasoning or a tool call arrived

    def feed(self, data: str) -> ChatChunk | None:
        """One event's data; the text and reasoning it carries (None when it has none)."""
        if self.ended:
            return None  # nothing counts after `[DONE]`
        self.events += 1
        if data.strip() == DONE_MARK:
            self.ended = True
            return None
        event = json.loads(data)  # ValueError on a cut line: the caller says so
        if not isinstance(event, dict):
            raise ValueError("not a JSON object")
        if "error" in event:
            raise StreamError(event["error"])
        self._usage(event.get("usage"))
        content, thinking = [], []
        for choice in _list(event.get("choices")):
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue  # n > 1 is never asked for
            if choice.get("finish_reason"):
                self.finish_reason = str(choice["finish_reason"])
            delta = choice.get("delta") or {}
            if not isinstance(delta, dict):
                continue
            if text := delta.get("content"):
                content.append(str(text))
            if reasoning := delta.get("reasoning_content") or delta.get("reasoning"):
                thinking.append(str(reasoning))
            for piece in _list(delta.get("tool_calls")):
                if isinstance(piece, dict):
                    self._call_piece(piece)
        if not (content or thinking):
            return None
        self.said_something = True
        return ChatChunk(content="".join(content), thinking="".join(thinking))

    def _call_piece(self, piece: dict[str, Any]) -> None:
        self.said_something = True
        index = piece.get("index")
        call_id = str(piece.get("id") or "")
        if not isinstance(index, int):
            # servers that send no index: a new id opens a call, no id continues the last
            known = next((i for i, c in self.calls.items() if call_id and c.id == call_id), None)
            if known is not None:
                index = known
            elif call_id or not self.calls:
                index = len(self.calls)
            else:
                index = max(self.calls)
        call = self.calls.setdefault(index, _Call())
        call.id = call.id or call_id
        function = piece.get("function") or {}
        if isinstance(function, dict):
            if name := function.get("name"):
                call.name = call.name or str(name)
            arguments = function.get("arguments")
            if isinstance(arguments, str):
                call.arguments.append(arguments)
            elif isinstance(arguments, dict):  # a server that sends the object whole
                call.arguments.append(json.dumps(arguments, ensure_ascii=False))

    def _usage(self, usage: Any) -> None:
        if not isinstance(usage, dict):
            return
        prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
        if type(prompt) is int:
            self.prompt_tokens = prompt
        if type(completion) is int:
            self.completion_tokens = completion

    @property
    def complete(self) -> bool:
        """The server said it was done (`[DONE]`, or a finish reason before the close)."""
        return self.ended or self.finish_reason is not None

    def final(self) -> ChatChunk:
        """The last chunk: the assembled tool calls (arguments as the JSON text sent; the
        agent parses and repairs it) and the usage."""
        calls = tuple(
            NativeToolCall(call.name, "".join(call.arguments) or "{}")
            for _, call in sorted(self.calls.items())
            if call.name
        )
        reason = self.finish_reason
        return ChatChunk(
            tool_calls=calls,
            done=True,
            done_reason="length" if reason == "length" else (reason or "stop"),
            prompt_eval_count=self.prompt_tokens,
            eval_count=self.completion_tokens,
        )
