"""A stream that says when its server went quiet, while it keeps waiting for it.

The silence limit (core.llm.silence) gives up after ten minutes; before that, a person
looking at an empty answer deserves to know the server has said nothing for 15 s. The
stream is read by one task of its own into a small queue; ONE loop timer (re-armed only
when it fires, as the silence watchdog does: on qasync a cancelled timer is kept until its
deadline) puts a `Quiet` mark in the queue when nothing came for `quiet_s`. The reader waits
on, until the limit or the person stops.

The same timer keeps the answer's time cap (`deadline`): it is armed at the sooner of the
next silence and the deadline, and at the deadline the stream ends with a `TimeUp` mark. So a
capped reply holds one timer however many pieces it streams (a timeout around each wait
would leave one pending timer per piece).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")
QUIET_S = 15.0
QUEUE_SIZE = 64  # read ahead at most this many pieces (the pump waits on a slow reader)


@dataclass(frozen=True, slots=True)
class Quiet:
    """Nothing has come from the server for `seconds` (said once per silence)."""

    seconds: float


@dataclass(frozen=True, slots=True)
class TimeUp:
    """The reply's time cap was reached: the stream ends here."""


class _End:
    pass


@dataclass(frozen=True, slots=True)
class _Failed:
    error: BaseException


@dataclass
class _Clock(Generic[T]):
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[T | Quiet | TimeUp | _End | _Failed]
    quiet_s: float
    deadline: float | None = None  # the answer's time cap, in loop time
    last: float = 0.0
    told: bool = False  # this silence was said
    due: float | None = None  # when the one pending timer fires
    over: bool = False
    time_up: bool = False

    def arrived(self) -> None:
        self.last, self.told = self.loop.time(), False
        self.arm()

    def arm(self) -> None:
        if self.due is not None or self.over:
            return
        due = math.inf if self.told else self.last + self.quiet_s
        if self.deadline is not None:
            due = min(due, self.deadline)
        if due != math.inf:
            self.due = due
            self.loop.call_at(due, self.fire)

    def fire(self) -> None:
        self.due = None
        if self.over:
            return
        now = self.loop.time()
        if self.deadline is not None and now >= self.deadline:
            self.time_up = True
            with contextlib.suppress(asyncio.QueueFull):  # full: the reader sees time_up
                self.queue.put_nowait(TimeUp())
            return
        gap = now - self.last
        if not self.told and gap >= self.quiet_s:
            with contextlib.suppress(asyncio.QueueFull):  # full: pieces are waiting, not quiet
                self.queue.put_nowait(Quiet(gap))
            self.told = True
        self.arm()


async def marking_quiet(
    stream: AsyncIterator[T], quiet_s: float = QUIET_S, deadline: float | None = None
) -> AsyncIterator[T | Quiet | TimeUp]:
    """The pieces of `stream`, with a `Quiet` among them after each silence of `quiet_s`;
    past `deadline` (loop time), a last `TimeUp` and the end."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[T | Quiet | TimeUp | _End | _Failed] = asyncio.Queue(QUEUE_SIZE)
    clock: _Clock[T] = _Clock(loop, queue, quiet_s, deadline)

    async def pump() -> None:
        try:
            async for piece in stream:
                clock.arrived()
                await queue.put(piece)
        except Exception as exc:  # the reader raises it (BackendError, mostly)
            await queue.put(_Failed(exc))
            return
        finally:
            # closed here, in the task that ran it (its HTTP stream with it): left to the
            # garbage collector, another task would close it while it is suspended here
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()
        await queue.put(_End())

    clock.arrived()
    reader = asyncio.ensure_future(pump())
    try:
        while True:
            piece = await queue.get()
            if isinstance(piece, _End):
                return
            if isinstance(piece, _Failed):
                raise piece.error
            if isinstance(piece, TimeUp) or clock.time_up:
                yield TimeUp()
                return
            yield piece
    finally:
        clock.over = True
        if not reader.done():
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
