"""Runs a conversation's turns in a task the window owns, draining the events into a view."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Protocol

from PySide6.QtCore import QObject, Signal

from loki_desktop.core.agent import Agent
from loki_desktop.core.events import (
    CheckReport,
    Done,
    Error,
    Event,
    Notice,
    SkillUsed,
    Token,
    ToolCall,
    ToolResult,
)

log = logging.getLogger(__name__)


class TurnSink(Protocol):
    """What a turn's events are drained into (the chat view, the quick prompt)."""

    def add_skill_badge(self, title: str) -> object: ...

    def append_text(self, text: str) -> None: ...

    def end_answer(self, *, cut: bool = False) -> None: ...

    def add_tool_call(self, call_id: str, name: str, args: dict[str, object]) -> object: ...

    def set_tool_result(self, call_id: str, ok: bool, summary: str, output: str) -> None: ...

    def interrupt_tools(self) -> None: ...

    def add_check(
        self,
        path: str,
        ok: bool,
        problems: list[tuple[int, int, str]],
        skipped: str | None = None,
    ) -> object: ...

    def add_notice(self, message: str) -> object: ...

    def add_error(self, message: str, *, can_retry: bool = True) -> object: ...


def apply_event(sink: TurnSink, event: Event) -> None:
    """One event, one small mutation of the view."""
    match event:
        case Token(text=text):
            sink.append_text(text)
        case SkillUsed(title=title):
            sink.add_skill_badge(title)
        case ToolCall(id=call_id, name=name, args=args):
            sink.add_tool_call(call_id, name, args)
        case ToolResult(id=call_id, ok=ok, summary=summary, output=output):
            sink.set_tool_result(call_id, ok, summary, output)
        case CheckReport(path=path, ok=ok, problems=problems, skipped=skipped):
            sink.add_check(path, ok, [(p.line, p.col, p.message) for p in problems], skipped)
        case Notice(message=message):
            sink.add_notice(message)
        case Error(message=message):
            sink.add_error(message)
        case Done(reason=reason):
            sink.end_answer(cut=reason in ("error", "cancelled"))


class TurnRunner(QObject):
    """One conversation's running turn. `stop` cancels the task; the agent keeps what was said."""

    busy_changed = Signal(bool)
    finished = Signal(str)  # the reason: completed, max_rounds, error, cancelled

    def __init__(
        self,
        sink: TurnSink,
        make_agent: Callable[[], Agent],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.sink = sink
        self.make_agent = make_agent
        self._task: asyncio.Task[str] | None = None
        self.last_reason = ""

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def send(self, text: str, conversation_id: str) -> asyncio.Task[str]:
        agent = self.make_agent()
        return self._start(agent.run_turn(text, conversation_id))

    def retry(self, conversation_id: str) -> asyncio.Task[str]:
        agent = self.make_agent()
        return self._start(agent.retry_turn(conversation_id))

    def stop(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def wait(self) -> str:
        if self._task is None:
            return self.last_reason
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(self._task)
        return self.last_reason

    def _start(self, events: AsyncIterator[Event]) -> asyncio.Task[str]:
        if self.busy:
            raise RuntimeError("a turn is already running in this conversation")
        self._task = asyncio.ensure_future(self._drain(events))
        self.busy_changed.emit(True)
        return self._task

    async def _drain(self, events: AsyncIterator[Event]) -> str:
        reason = "error"
        try:
            # aclosing: a cancelled turn closes the generator, so the agent stores the cut
            async with contextlib.aclosing(events) as stream:  # type: ignore[type-var]
                async for event in stream:
                    apply_event(self.sink, event)
                    if isinstance(event, Done):
                        reason = event.reason
        except asyncio.CancelledError:
            reason = "cancelled"
            self.sink.end_answer(cut=True)
            self.sink.interrupt_tools()
            self.sink.add_notice(self.tr("Tour arrêté : la réponse partielle est gardée."))
        except Exception as exc:  # a bug in a tool source must not take the window down
            log.exception("turn failed")
            reason = "error"
            self.sink.add_error(
                self.tr("Erreur interne : {error}").format(error=f"{type(exc).__name__}: {exc}")
            )
        finally:
            self.last_reason = reason
            self.busy_changed.emit(False)
            self.finished.emit(reason)
        return reason
