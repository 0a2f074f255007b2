"""Running tasks: each in a fresh temporary workspace, with a time limit, harness on or off.

"on" is Loki as it ships: skills, checks and the fix pass, text-form call recovery,
prompted tools for models without native ones. "off" is what a person would get from a
plain chat with native tools: the same tools, called natively only, and nothing else.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import threading
import time
from collections.abc import AsyncGenerator, Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal

from loki_desktop.core.assembly import TurnOptions, build_agent
from loki_desktop.core.evaluation.graders import Verdict, grade
from loki_desktop.core.evaluation.tasks import EvalTask
from loki_desktop.core.events import Done, Error, Token, ToolCall, ToolResult
from loki_desktop.core.file_change import FileChange
from loki_desktop.core.ports import ChatBackend, ConversationStore, SecretStore
from loki_desktop.core.settings import Settings
from loki_desktop.core.tools.toolbox import OwningSource

Harness = Literal["on", "off"]
BackendFor = Callable[[str, EvalTask, Harness, str], ChatBackend]  # model, task, mode, page URL
StoreFor = Callable[[Path], ConversationStore]
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
                (workspace / name).write_text(content, encoding="utf-8")
            store = self.store_for(Path(tmp) / "history.db")
            backend = self.backend_for(model, task, mode, url)
            try:
                outcome = await self._turn(model, mode, task, url, workspace, store, backend)
            finally:
                store.close()
            verdicts = tuple(await grade(task.graders, workspace, outcome.answer))
        passed = not outcome.error and all(v.passed for v in verdicts)
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
            outcome.error,
        )

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
        settings = Settings(
            model=model,
            max_rounds=self.settings.max_rounds,
            num_ctx=self.settings.num_ctx,
            skills_enabled=mode == "on",
            auto_checks=mode == "on",
            # off: tools are sent natively only, never described in the prompt
            tool_modes={} if mode == "on" else {model: "native"},
        )
        extra: list[OwningSource] = []
        manager = None
        if task.needs_fetch:
            manager = self._fetch_manager()
            extra.append(manager)
        agent = build_agent(
            settings=settings,
            backend=backend,
            store=store,
            workspace=workspace,
            approver=_NoShell(),
            options=TurnOptions(
                model=model, skills=mode == "on", extra_sources=extra, text_calls=mode == "on"
            ),
        )
        outcome = _Outcome()
        try:
            async with asyncio.timeout(task.time_limit_s):
                async with contextlib.aclosing(
                    agent.run_turn(task.prompt.replace("{url}", url))
                ) as events:
                    async for event in events:
                        outcome.add(event)
        except TimeoutError:
            outcome.error = f"time limit of {task.time_limit_s:g} s reached"
        finally:
            if manager is not None:
                await manager.aclose()
        return outcome

    def _fetch_manager(self) -> Any:
        from loki_desktop.core.mcp.catalogue import fetch_command
        from loki_desktop.core.mcp.manager import McpManager

        command = [*fetch_command(), "--allow-private-ips", "--ignore-robots-txt"]
        entry = {"enabled": True, "label": "Fetch", "command": command}
        return McpManager.from_settings({FETCH_SERVER_ID: entry}, self.secrets)


@dataclass
class _Outcome:
    answer: str = ""
    rounds: int = 0
    tool_calls: int = 0
    valid_tool_calls: int = 0
    tokens: int = 0
    error: str = ""

    def add(self, event: object) -> None:
        match event:
            case Token(text=text):
                self.answer += text
            case ToolCall():
                self.tool_calls += 1
            case ToolResult(ok=ok):
                self.valid_tool_calls += ok
            case Error(message=message):
                self.error = message
            case Done(stats=stats):
                self.rounds = stats.get("rounds", 0)
                self.tokens = stats.get("prompt_tokens", 0) + stats.get("answer_tokens", 0)


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
