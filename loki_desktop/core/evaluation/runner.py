"""Running tasks: each in a fresh temporary workspace, with a time limit, in a harness variant.

"on" is the whole harness: skills, checks and the fix pass, text-form call recovery,
prompted tools for models without native ones, compaction, memories, the plan step and the
self-review. "off" is what a person would get from a plain chat with native tools: the same
tools, called natively only, and nothing else. The other variants are "on" without one part
(core.evaluation.variants).
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import threading
import time
from collections.abc import AsyncGenerator, Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal

from loki_desktop.core.agent import Agent
from loki_desktop.core.assembly import TurnOptions, build_agent
from loki_desktop.core.evaluation.graders import Verdict, grade
from loki_desktop.core.evaluation.tasks import EvalTask
from loki_desktop.core.evaluation.variants import Harness, Parts, parts
from loki_desktop.core.events import (
    Done,
    DoneReason,
    Error,
    Notice,
    Thinking,
    Token,
    ToolCall,
    ToolResult,
)
from loki_desktop.core.file_change import FileChange
from loki_desktop.core.llm.caps import AnswerCaps
from loki_desktop.core.llm.mode import empty_answer_message
from loki_desktop.core.memory.recall import Memories
from loki_desktop.core.ports import ChatBackend, ConversationStore, SecretStore
from loki_desktop.core.settings import Settings
from loki_desktop.core.tools.toolbox import OwningSource

__all__ = ["TASK_ENDS", "Harness", "Runner", "TaskEnd", "TaskResult"]
# How a task ended: passed, a grader failed, its time ran out (the answer's cap or the task's
# limit), the repetition guard, the length cap, the model said nothing at all, or the server
# failed.
TaskEnd = Literal[
    "passed", "failed_check", "timeout", "repetition", "length", "empty_answer", "server_error"
]
TASK_ENDS: tuple[TaskEnd, ...] = (
    "passed",
    "failed_check",
    "timeout",
    "repetition",
    "length",
    "empty_answer",
    "server_error",
)
BackendFor = Callable[[str, EvalTask, Harness, str], ChatBackend]  # model, task, mode, page URL
StoreFor = Callable[[Path], ConversationStore]
MemoriesAt = Callable[[Path], Memories]  # a task's memories, kept in its folder
FETCH_SERVER_ID = "web"  # its tool is mcp_web_fetch (see suite_basic.FETCH_TOOL)


@dataclass(frozen=True, slots=True)
class TaskResult:
    model: str
    harness: Harness
    task: str
    kind: str
    passed: bool
    verdicts: tuple[Verdict, ...]
    seconds: float
    rounds: int
    tool_calls: int
    valid_tool_calls: int
    tokens: int
    error: str = ""
    # how the task ended (see task_end), the tokens the model produced, the notices by code
    end: TaskEnd = "failed_check"
    answer_tokens: int = 0
    notices: tuple[tuple[str, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "task",
            "model": self.model,
            "harness": self.harness,
            "task": self.task,
            "kind": self.kind,
            "passed": self.passed,
            "reasons": [v.reason for v in self.verdicts],
            "seconds": round(self.seconds, 2),
            "rounds": self.rounds,
            "tool_calls": self.tool_calls,
            "valid_tool_calls": self.valid_tool_calls,
            "tokens": self.tokens,
            "error": self.error,
            "end": self.end,
            "answer_tokens": self.answer_tokens,
            "notices": dict(self.notices),
        }


class _NoShell:
    """The agent may not run code during an evaluation (graders may, in their subprocess)."""

    async def approve_shell(self, command: str, cwd: Path) -> bool:
        return False

    async def approve_write(self, change: FileChange, cwd: Path) -> bool:
        return True  # the tasks' own scratch folders: writing there is the task

    async def approve_unkept_write(self, path: str, reason: str, cwd: Path) -> bool:
        return False  # nobody to ask: the rule holds


@dataclass
class Runner:
    backend_for: BackendFor
    store_for: StoreFor
    secrets: SecretStore
    settings: Settings
    caps: AnswerCaps = field(default_factory=AnswerCaps)  # `eval --max-tokens/--timeout`
    # each task's own memories, in its temporary folder (None: no memories in this run)
    memories_at: MemoriesAt | None = None

    async def run(
        self, models: list[str], modes: list[Harness], tasks: list[EvalTask]
    ) -> AsyncGenerator[TaskResult, None]:
        """Every task for every model and mode, one result as each finishes."""
        with serve_pages(tasks) as urls:
            for model in models:
                for mode in modes:
                    for task in tasks:
                        yield await self.run_task(model, mode, task, urls.get(task.id, ""))

    async def run_task(self, model: str, mode: Harness, task: EvalTask, url: str) -> TaskResult:
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix=f"loki-eval-{task.id}-") as tmp:
            workspace = Path(tmp) / "workspace"
            workspace.mkdir()
            for name, content in task.files.items():
                (workspace / name).parent.mkdir(parents=True, exist_ok=True)
                (workspace / name).write_text(content, encoding="utf-8")
            store = self.store_for(Path(tmp) / "history.db")
            backend = self.backend_for(model, task, mode, url)
            try:
                outcome = await self._turn(model, mode, task, url, workspace, store, backend)
            finally:
                store.close()
            verdicts = tuple(await grade(task.graders, workspace, outcome.answer))
        # the task's own limit is a failure (the turn never ended); an answer stopped by a cap
        # is graded on what it did before
        passed = not outcome.error and not outcome.timed_out and all(v.passed for v in verdicts)
        return _result(model, mode, task, passed, verdicts, started, outcome)

    async def _turn(
        self,
        model: str,
        mode: Harness,
        task: EvalTask,
        url: str,
        workspace: Path,
        store: ConversationStore,
        backend: ChatBackend,
    ) -> _Outcome:
        chosen = parts(mode)
        # a fresh memory file per task: what an earlier conversation of the task kept
        wanted = chosen.memory and self.memories_at is not None
        memories = self.memories_at(workspace.parent) if wanted and self.memories_at else None
        agent_for = self._agents(model, chosen, workspace, store, backend, memories)
        extra: list[OwningSource] = []
        manager = None
        if task.needs_fetch:
            manager = self._fetch_manager()
            extra.append(manager)
        outcome = _Outcome(limit_s=_time_limit(task, self.caps))
        try:
            async with asyncio.timeout(outcome.limit_s):
                await _earlier_conversation(agent_for([]), task)
                async with contextlib.aclosing(
                    agent_for(extra).run_turn(task.prompt.replace("{url}", url))
                ) as events:
                    async for event in events:
                        outcome.add(event)
        except TimeoutError:
            outcome.timed_out = True
        finally:
            if manager is not None:
                await manager.aclose()
            if memories is not None:
                await memories.aclose()
        return outcome

    def _agents(
        self,
        model: str,
        chosen: Parts,
        workspace: Path,
        store: ConversationStore,
        backend: ChatBackend,
        memories: Memories | None,
    ) -> Callable[[list[OwningSource]], Agent]:
        """Builds the variant's agents (one per conversation of the task)."""
        on = chosen.harness
        settings = Settings(
            model=model,
            max_rounds=self.settings.max_rounds,
            num_ctx=self.settings.num_ctx,
            skills_enabled=on,
            answer_max_tokens=self.settings.answer_max_tokens,
            answer_timeout_s=self.settings.answer_timeout_s,
            model_answer_caps=self.settings.model_answer_caps,
            auto_checks=on,
            # off: tools are sent natively only, never described in the prompt
            tool_modes={} if on else {model: "native"},
        )

        def agent(extra: list[OwningSource]) -> Agent:
            options = TurnOptions(
                model=model,
                skills=on,
                extra_sources=extra,
                text_calls=on,
                caps=self.caps,
                memories=memories,
                plan=chosen.plan,
                review=chosen.review,
                compaction=on,
            )
            return build_agent(
                settings=settings,
                backend=backend,
                store=store,
                workspace=workspace,
                approver=_NoShell(),
                options=options,
            )

        return agent

    def _fetch_manager(self) -> Any:
        from loki_desktop.core.mcp.catalogue import fetch_command
        from loki_desktop.core.mcp.manager import McpManager

        command = [*fetch_command(), "--allow-private-ips", "--ignore-robots-txt"]
        entry = {"enabled": True, "label": "Fetch", "command": command}
        return McpManager.from_settings({FETCH_SERVER_ID: entry}, self.secrets)


async def _earlier_conversation(agent: Agent, task: EvalTask) -> None:
    """Say the task's `earlier` messages in a conversation of their own, before the task's
    request is asked in a new one (the memory tasks)."""
    conversation: str | None = None
    for text in task.earlier:
        async with contextlib.aclosing(agent.run_turn(text, conversation)) as events:
            async for _event in events:
                pass
        conversation = agent.last_conversation


@dataclass
class _Outcome:
    """What a task's turn produced, up to its end whatever ended it (the time limit cancels
    the turn before its Done: the streamed pieces then stand in for the server's count)."""

    answer: str = ""
    rounds: int = 0
    tool_calls: int = 0
    valid_tool_calls: int = 0
    tokens: int = 0
    error: str = ""
    answer_tokens: int = 0
    pieces: int = 0  # tokens and reasoning pieces streamed
    done: DoneReason | None = None
    timed_out: bool = False  # the task's own time limit cancelled the turn
    limit_s: float = 0.0
    notices: dict[str, int] = field(default_factory=dict)

    def add(self, event: object) -> None:
        match event:
            case Token(text=text):
                self.answer += text
                self.pieces += 1
            case Thinking():
                self.pieces += 1
            case ToolCall():
                self.tool_calls += 1
            case ToolResult(ok=ok):
                self.valid_tool_calls += ok
            case Notice(code=code):
                self.notices[code] = self.notices.get(code, 0) + 1
            case Error(message=message):
                self.error = message
            case Done(reason=reason, stats=stats):
                self.done = reason
                if stats is not None:
                    self.rounds = stats.rounds
                    self.answer_tokens = stats.answer_tokens
                    # every request's prompt, as the server counted it, and the answers
                    self.tokens = stats.prompt_total + self.answer_tokens

    @property
    def produced(self) -> int:
        return self.answer_tokens or self.pieces


def task_end(passed: bool, outcome: _Outcome) -> TaskEnd:
    """How a task ended, for the report: a server error first, then the verdict, then what
    stopped an answer that did not pass."""
    if outcome.error and not outcome.timed_out:
        # the turn's one error that is the model's, not the server's: it said nothing
        return "empty_answer" if outcome.error == empty_answer_message() else "server_error"
    if passed:
        return "passed"
    if outcome.timed_out or outcome.done == "timeout":
        return "timeout"
    if outcome.done in ("repetition", "length"):
        return outcome.done
    return "failed_check"


def _time_limit(task: EvalTask, caps: AnswerCaps) -> float:
    """The task's own limit, a backstop above the answer's time cap (tools take time too)."""
    return max(task.time_limit_s, 2 * caps.timeout_s)


def _result(
    model: str,
    mode: Harness,
    task: EvalTask,
    passed: bool,
    verdicts: tuple[Verdict, ...],
    started: float,
    outcome: _Outcome,
) -> TaskResult:
    error = outcome.error
    if outcome.timed_out and not error:
        error = f"time limit of {outcome.limit_s:g} s reached"
    return TaskResult(
        model,
        mode,
        task.id,
        task.kind,
        passed,
        verdicts,
        time.monotonic() - started,
        outcome.rounds,
        outcome.tool_calls,
        outcome.valid_tool_calls,
        outcome.tokens,
        error,
        end=task_end(passed, outcome),
        answer_tokens=outcome.produced,
        notices=tuple(sorted(outcome.notices.items())),
    )


@contextlib.contextmanager
def serve_pages(tasks: list[EvalTask]) -> Iterator[dict[str, str]]:
    """Serve each tool task's page on a loopback port; yields task id -> URL."""
    pages = {f"/{task.id}.html": task.page.encode() for task in tasks if task.page}
    if not pages:
        yield {}
        return

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path)
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield {task.id: f"{base}/{task.id}.html" for task in tasks if task.page}
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
