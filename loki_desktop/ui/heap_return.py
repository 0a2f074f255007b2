"""Gives the memory freed by closed conversations back to the system (glibc's malloc_trim).

Opening a conversation builds hundreds of widgets and Markdown documents; closing it frees
them, but glibc keeps the freed pages in its arenas, fragmented, and the process's resident
memory only grows over a day of switching (the soak bench: +7 MB over 90 turns read at
once, +4 MB once this ran). `malloc_trim(0)` hands those pages back. It runs once the
window has been quiet for a moment (QUIET_MS) after a conversation was dropped or a turn
ended, never on the path of a click. Elsewhere than glibc it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer

# after the last drop or turn end: a run of switches (keys held in the list) trims once. A
# trim costs 0.3-10 ms on the soak bench's heap (~200 MB resident), less than the switch
# that asks for it; 1.5 s left a person reading conversations one after the other with
# the memory of all of them.
QUIET_MS = 250


def glibc_trim() -> Callable[[], object] | None:
    """glibc's malloc_trim(0), or None where the C library has none (macOS, Windows, musl)."""
    if not sys.platform.startswith("linux"):
        return None
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    trim = getattr(ctypes.CDLL(name), "malloc_trim", None)
    if trim is None:
        return None
    return lambda: trim(0)


class HeapReturn(QObject):
    """request() after freeing a lot; the trim runs once, QUIET_MS after the last request."""

    def __init__(self, parent: QObject | None = None, quiet_ms: int = QUIET_MS) -> None:
        super().__init__(parent)
        self._trim = glibc_trim()
        self.runs = 0  # trims done (what the tests and a curious person can look at)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(quiet_ms)
        self._timer.timeout.connect(self._run)

    @property
    def available(self) -> bool:
        return self._trim is not None

    @property
    def pending(self) -> bool:
        return self._timer.isActive()

    def request(self) -> None:
        if self._trim is not None:
            self._timer.start()  # restarts: a burst of requests trims once

    def _run(self) -> None:
        if self._trim is not None:
            self._trim()
            self.runs += 1


def delete_now(*objects: QObject) -> None:
    """Carries out at once the `deleteLater()` already asked for these objects.

    A conversation's view left for another was deleted only when control went back to the
    event loop, after the next view was built: both were alive together, so the C heap's
    high-water mark rose with each larger conversation opened (the soak: +1.5 MB per long
    answer shown) and glibc kept that peak as free memory. Deleted first, the old view's
    memory is what the next one is built in. Only for objects none of whose code is running
    (the caller is not one of their slots)."""
    for obj in objects:
        QCoreApplication.sendPostedEvents(obj, QEvent.Type.DeferredDelete)
