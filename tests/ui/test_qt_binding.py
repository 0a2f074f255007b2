"""Guards the PySide6 pin: 6.12.0 drops a reference on every bool a Signal carries, and the
app then aborts with "bool_dealloc" (our toggles and Stop signals carry bools)."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtCore import QObject, Signal


class _Emitter(QObject):
    flag = Signal(bool)


@pytest.mark.skipif(
    sys.version_info >= (3, 12),
    reason="True is immortal from Python 3.12 (PEP 683): its reference count never changes",
)
def test_signals_carrying_bools_keep_their_references(qapp: object) -> None:
    emitter = _Emitter()
    received: list[bool] = []
    emitter.flag.connect(received.append)
    before = sys.getrefcount(True)
    for _ in range(100):
        emitter.flag.emit(True)
    # each received True is one more reference; a broken binding loses them
    assert sys.getrefcount(True) - before >= len(received) == 100
    received.clear()
