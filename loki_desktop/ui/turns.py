"""Runs a conversation's turns in a task the window owns, draining the events into a view."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Signal

from loki_desktop.core.events import (
    ChangedFile,
    CheckReport,
    CutArgument,
    Done,
    Error,
    Event,
    Memorised,
    Notice,
    Recalled,
    RecalledItem,
    SkillUsed,
    Thinking,
    Token,
    ToolCall,
    ToolResult,
)
from loki_desktop.core.file_change import FileChange
from loki_desktop.core.i18n import _
from loki_desktop.core.image_attachment import ImageAttachment

if TYPE_CHECKING:
    from loki_desktop.core.agent import Agent  # imported at the first turn, not at start

log = logging.getLogger(__name__)
# the notices of an answer a cap or the repetition guard stopped (core.llm.caps)
STOPPED_BY = frozenset({"length", "timeout", "repetition"})


class TurnSink(Protocol):
    """What a turn's events are drained into (the chat view, the quick prompt)."""

    def add_skill_badge(self, title: str) -> object: ...

    def append_text(self, text: str) -> None: ...

    def append_thinking(self, text: str) -> None: ...

    def end_answer(self, *, cut: bool = False) -> None: ...

    def add_tool_call(
        self, call_id: str, name: str, args: dict[str, object], cut: Sequence[CutArgument] = ()
    ) -> object: ...

    def set_tool_result(
        self,
        call_id: str,
        ok: bool,
        summary: str,
        output: str,
        images: Sequence[ImageAttachment] = (),
        change: FileChange | None = None,
        shell_changes: Sequence[ChangedFile] = (),
    ) -> None: ...

    def interrupt_tools(self) -> None: ...

    def add_check(
        self,
        path: str,
        ok: bool,
        problems: list[tuple[int, int, str]],
        skipped: str | None = None,
    ) -> object: ...

    def add_notice(self, message: str) -> object: ...

    def add_recall(self, items: Sequence[RecalledItem]) -> object: ...

    def add_memorised(self, memory_id: int, text: str) -> object: ...

    def add_error(self, message: str, *, can_retry: bool = True) -> object: ...


def apply_event(sink: TurnSink, event: Event) -> None:
    """One event, one small mutation of the view."""
    match event:
        case Token(text=text):
            sink.append_text(text)
        case Thinking(text=text):
            sink.append_thinking(text)
        case SkillUsed(title=title):
            sink.add_skill_badge(title)
        case ToolCall(id=call_id, name=name, args=args, cut_args=cut):
            sink.add_tool_call(call_id, name, args, cut)
        case ToolResult(
            id=call_id,
            ok=ok,
            summary=summary,
            output=output,
            images=images,
            change=change,
            shell_changes=changed,
        ):
            sink.set_tool_result(
                call_id, ok, summary, output, images, change=change, shell_changes=changed
            )
        case CheckReport(path=path, ok=ok, problems=problems, skipped=skipped):
            sink.add_check(path, ok, [(p.line, p.col, p.message) for p in problems], skipped)
        case Recalled(items=items):
            sink.add_recall(items)
        case Memorised(id=memory_id, text=text):
            sink.add_memorised(memory_id, text)
        case Notice(message=message, code=code):
            if code in STOPPED_BY:  # said before Done: the answer it stopped is marked cut
                sink.end_answer(cut=True)
            sink.add_notice(message)
        case Error(message=message):
            sink.add_error(message)
        case Done(reason=reason):
            sink.end_answer(cut=reason == "error")


class TurnRunner(QObject):
    """One conversation's running turn. `stop` cancels the task; the agent keeps what was said.

    `running` is shared by every runner of the window session (the window's and the quick
    prompt's): the conversations with a turn under way. A conversation never runs two turns
    at once, or their messages would interleave in its history.
    """

    busy_changed = Signal(bool)
    finished = Signal(str)  # the reason: completed, max_rounds, error, cancelled

    def __init__(
        self,
        sink: TurnSink,
        make_agent: Callable[[], Agent],
        running: set[str],
        parent: QObject | None = None,
        prepare: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        super().__init__(parent)
        self.sink = sink
        self.make_agent = make_agent
        # awaited before each turn builds its agent: imports the agent's modules off the GUI
        # thread at the first one (Runtime.load_agent)
        self.prepare = prepare
        self.running = running
        self._task: asyncio.Task[str] | None = None
        # the conversation of the running turn; cleared before busy_changed/finished are
        # emitted, so their slots see the runner idle (the task itself ends just after)
        self._conversation: str | None = None
        self.last_reason = ""

    @property
    def busy(self) -> bool:
        return self._conversation is not None

    def can_start(self, conversation_id: str) -> bool:
        """No turn runs here, nor in this conversation elsewhere (the window, the quick prompt)."""
        return not self.busy and conversation_id not in self.running

    def send(
        self, text: str, conversation_id: str, images: Sequence[ImageAttachment] = ()
    ) -> asyncio.Task[str]:
        return self._start(
            lambda agent: agent.run_turn(text, conversation_id, images), conversation_id
        )

    def retry(self, conversation_id: str) -> asyncio.Task[str]:
        return self._start(lambda agent: agent.retry_turn(conversation_id), conversation_id)

    def stop(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def wait(self) -> str:
        if self._task is None:
            return self.last_reason
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(self._task)
        return self.last_reason

    def _start(
        self, turn: Callable[[Agent], AsyncGenerator[Event, None]], conversation_id: str
    ) -> asyncio.Task[str]:
        if not self.can_start(conversation_id):
            raise RuntimeError("a turn is already running in this conversation")
        self._conversation = conversation_id
        self.running.add(conversation_id)
        task = asyncio.ensure_future(self._drain(turn))
        # a task cancelled before its first step never enters _drain's finally
        task.add_done_callback(lambda done: self._end(done, "cancelled"))
        self._task = task
        self.busy_changed.emit(True)
        return task

    async def _drain(self, turn: Callable[[Agent], AsyncGenerator[Event, None]]) -> str:
        reason = "error"
        try:
            if self.prepare is not None:
                await self.prepare()
            agent = self.make_agent()  # in here: a failure to build it becomes an error card
            # aclosing: a cancelled turn closes the generator, so the agent stores the cut
            async with contextlib.aclosing(turn(agent)) as stream:
                async for event in stream:
                    apply_event(self.sink, event)
                    if isinstance(event, Done):
                        reason = event.reason
        except asyncio.CancelledError:
            reason = "cancelled"
            self.sink.end_answer(cut=True)
            self.sink.interrupt_tools()
            self.sink.add_notice(_("Tour arrêté : la réponse partielle est gardée."))
        except Exception as exc:  # a bug in a tool source must not take the window down
            log.exception("turn failed")
            reason = "error"
            self.sink.add_error(
                _("Erreur interne : {error}").format(error=f"{type(exc).__name__}: {exc}")
            )
        finally:
            self._end(asyncio.current_task(), reason)
        return reason

    def _end(self, task: asyncio.Future[str] | None, reason: str) -> None:
        """The turn of `task` is over: idle first, then say so (once)."""
        if task is not self._task or self._conversation is None:
            return  # said already, or a newer turn runs
        self.running.discard(self._conversation)
        self._conversation = None
        self.last_reason = reason
        self.busy_changed.emit(False)
        self.finished.emit(reason)
