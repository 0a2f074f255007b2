"""A silence limit for streamed requests that holds ONE loop timer, not one per socket read.

Why not httpx's read timeout: httpcore wraps every socket read in an anyio cancel scope
with that timeout, so a streamed answer schedules one loop timer per chunk. On the qasync
loop each one is a Qt timer and an `asyncio.Handle` kept until its deadline, even once
cancelled: ~950 pending timers, held ten minutes, for a 1,500-token answer.

Here a request marks when it starts waiting (`waiting()`) and when a line arrived
(`arrived()`), which only stores a number. One timer per watchdog checks the waits when it
fires and re-arms itself at the earliest deadline still pending; a wait that passed the
limit has its task cancelled, and the wait's `__exit__` turns that cancellation into
`SilenceExpired`. The timer is never cancelled (on qasync a cancelled timer is kept anyway):
a stale one fires once and does nothing.
"""

from __future__ import annotations

import asyncio
from types import TracebackType


class SilenceExpired(Exception):
    """The server sent nothing for longer than the limit."""


class Silence:
    """One request's waits. Use `with watchdog.watch() as silence:` around the request."""

    __slots__ = ("_cancelling", "_dog", "expired", "since", "task")

    def __init__(self, dog: SilenceWatchdog, task: asyncio.Task[object]) -> None:
        self._dog = dog
        self.task = task
        self._cancelling = task.cancelling()
        self.since: float | None = None  # loop time the current wait began; None: not waiting
        self.expired = False

    def waiting(self) -> None:
        """The request now waits for the server (sending, headers, next line)."""
        self.since = self._dog.now()
        self._dog.arm(self.since)

    def arrived(self) -> None:
        """Something came: the code that runs until the next `waiting()` is not silence."""
        self.since = None

    def __enter__(self) -> Silence:
        self._dog.active.add(self)
        self.waiting()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._dog.active.discard(self)
        # our own cancel, unless someone else (Stop) cancelled the task too
        expired = self.expired and exc_type is asyncio.CancelledError
        if expired and self.task.uncancel() <= self._cancelling:
            raise SilenceExpired from exc


class SilenceWatchdog:
    """Cancels the waits of its requests that last longer than `limit_s` seconds."""

    def __init__(self, limit_s: float) -> None:
        self.limit_s = limit_s
        self.active: set[Silence] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._due: float | None = None  # when the one pending timer fires

    def watch(self) -> Silence:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # a new loop (tests, a second asyncio.run): no timer on it
            self._loop, self._due = loop, None
        task = asyncio.current_task()
        assert task is not None, "a watched request runs in a task"
        return Silence(self, task)

    def now(self) -> float:
        assert self._loop is not None
        return self._loop.time()

    def arm(self, since: float) -> None:
        # every deadline is a start time plus the same limit, so a pending timer is always
        # due no later than the new deadline: it re-arms itself for the later ones
        if self._due is None:
            self._schedule(since + self.limit_s)

    def _schedule(self, when: float) -> None:
        assert self._loop is not None
        self._due = when
        self._loop.call_at(when, self._fire, when)

    def _fire(self, when: float) -> None:
        if when != self._due:
            return  # a timer of a loop or a schedule since replaced
        self._due = None
        now = self.now()
        pending = []
        for silence in self.active:
            if silence.since is None or silence.expired:
                continue
            if now - silence.since >= self.limit_s:
                silence.expired = True
                silence.task.cancel()
            else:
                pending.append(silence.since + self.limit_s)
        if pending:
            self._schedule(min(pending))
