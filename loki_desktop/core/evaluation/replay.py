"""Model replies without a model: replayed from a recording, or scripted from a task's
reference (an oracle that solves it, a saboteur that gets it wrong, a small model that
writes its tool calls as text). The runner and every grader are tested this way in CI.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from loki_desktop.core.evaluation.tasks import EvalTask, ReferenceCall
from loki_desktop.core.ports import ChatBackend, ChatChunk, ModelInfo, ModelProfile, NativeToolCall

Script = Literal["oracle", "sabotage", "text"]
SCRIPTS: tuple[Script, ...] = ("oracle", "sabotage", "text")


@dataclass(frozen=True, slots=True)
class Reply:
    """One recorded model reply: its text and its native tool calls. A recording also keeps
    the reasoning, how the reply ended (the server's done_reason, or "cut" when it was
    stopped before its end: a cap, the repetition guard, the task's time limit) and the
    pieces streamed; a replay reads only the text and the calls."""

    content: str = ""
    calls: tuple[tuple[str, dict[str, Any]], ...] = ()
    thinking: str = ""
    ended: str = ""
    pieces: int = 0

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"content": self.content, "calls": [[n, a] for n, a in self.calls]}
        if self.thinking:
            data["thinking"] = self.thinking
        if self.ended:
            data["ended"] = self.ended
            data["pieces"] = self.pieces
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Reply:
        calls = tuple((str(name), dict(args)) for name, args in data.get("calls", []))
        return cls(str(data.get("content", "")), calls)


@dataclass
class ReplayBackend:
    """A ChatBackend answering each request with the next reply (the last one repeats)."""

    replies: list[Reply]
    model: str = "replay"
    host: str = "replay:"
    requests: list[dict[str, Any]] = field(default_factory=list)

    async def list_models(self) -> list[ModelInfo]:
        return [ModelInfo(self.model)]

    async def context_length(self, model: str) -> int | None:
        return 32768

    async def model_profile(self, model: str) -> ModelProfile:
        """A model with native tools, no thinking, no vision (what the replies assume)."""
        return ModelProfile(name=model, context_length=32768)

    async def close(self) -> None:
        return None

    async def chat(
        self,
        *,
        model: str,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]],
        options: dict[str, Any],
        **_extra: Any,
    ) -> AsyncIterator[ChatChunk]:
        index = min(len(self.requests), len(self.replies) - 1)
        self.requests.append({"messages": list(messages), "tools": list(tools)})
        reply = self.replies[index]
        if reply.content:
            yield ChatChunk(content=reply.content)
        calls = tuple(NativeToolCall(name, args) for name, args in reply.calls)
        yield ChatChunk(tool_calls=calls, done=True, done_reason="stop", eval_count=20)


@dataclass
class RecordingBackend:
    """Passes requests to a real backend and keeps each reply (for `eval --record`)."""

    inner: ChatBackend
    replies: list[Reply] = field(default_factory=list)
    host: str = ""

    def __post_init__(self) -> None:
        self.host = self.inner.host

    async def list_models(self) -> list[ModelInfo]:
        return await self.inner.list_models()

    async def context_length(self, model: str) -> int | None:
        return await self.inner.context_length(model)

    async def model_profile(self, model: str) -> ModelProfile:
        return await self.inner.model_profile(model)

    async def chat(self, **request: Any) -> AsyncIterator[ChatChunk]:
        """The inner stream, kept as it goes: a reply stopped before its end (a cap, the
        repetition guard, the task's time limit, a server error) is kept up to there."""
        content, thinking, calls, pieces, ended = [], [], [], 0, "cut"
        try:
            async for chunk in self.inner.chat(**request):
                content.append(chunk.content)
                thinking.append(chunk.thinking)
                pieces += bool(chunk.content or chunk.thinking)
                calls += [(call.name, _args(call.arguments)) for call in chunk.tool_calls]
                if chunk.done:
                    ended = chunk.done_reason or "stop"
                yield chunk
        finally:
            reply = Reply("".join(content), tuple(calls), "".join(thinking), ended, pieces)
            self.replies.append(reply)


def scripted(task: EvalTask, script: Script, url: str = "") -> list[Reply]:
    """The replies of a model that solves the task (`oracle`), gets it wrong (`sabotage`)
    or solves it writing its calls as text (`text`: only the harness reads those)."""
    rounds = [tuple(_with_url(call, url) for call in calls) for calls in task.reference.rounds]
    answer = task.reference.answer
    if script == "sabotage":
        return _sabotage(task, rounds)
    if script == "text":
        return [Reply(_as_text(calls)) for calls in rounds] + [Reply(answer)]
    return [Reply("", tuple((c.name, c.args) for c in calls)) for calls in rounds] + [Reply(answer)]


def _sabotage(task: EvalTask, rounds: list[tuple[ReferenceCall, ...]]) -> list[Reply]:
    """Wrong in the way each kind of task can be wrong: the file written badly, the tests
    edited instead of the code, a guessed number, no tool used."""
    replies = []
    for calls in rounds:
        wrong = []
        for call in calls:
            if call.name == "write_file":
                path = str(call.args.get("path", ""))
                if task.kind == "fix":  # "fixes" the tests instead of the code
                    path = next(name for name in task.files if name.startswith("test_"))
                    wrong.append((call.name, {"path": path, "content": _passing_tests()}))
                else:
                    wrong.append((call.name, {"path": path, "content": "<p>à faire\n"}))
            elif task.kind != "tool":
                wrong.append((call.name, call.args))
        if wrong:
            replies.append(Reply("", tuple(wrong)))
    return [*replies, Reply("Je pense que c'est environ 7, et c'est terminé.")]


def _passing_tests() -> str:
    return (
        "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_it(self):\n        pass\n"
    )


def _as_text(calls: tuple[ReferenceCall, ...]) -> str:
    parts = [
        "<tool_call>\n" + json.dumps({"name": c.name, "arguments": c.args}) + "\n</tool_call>"
        for c in calls
    ]
    return "\n".join(parts)


def _with_url(call: ReferenceCall, url: str) -> ReferenceCall:
    args = {k: v.replace("{url}", url) if isinstance(v, str) else v for k, v in call.args.items()}
    return ReferenceCall(call.name, args)


def _args(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        parsed = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        parsed = None
    return parsed if isinstance(parsed, dict) else {"raw": raw}


def save_recording(path: Path, replies: list[Reply]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = [reply.to_json() for reply in replies]
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")


def load_recording(path: Path) -> list[Reply]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [Reply.from_json(item) for item in data] or [Reply("")]
