"""The per-conversation turn lock of history.db (issue 16.5): one holder at a time."""

from __future__ import annotations

import gc
from pathlib import Path

from loki_desktop.persistence.history import History


def test_one_holder_per_conversation_and_released_for_the_next(tmp_path: Path) -> None:
    first, second = History(tmp_path / "h.db"), History(tmp_path / "h.db")
    held = first.lock_turn("abc")
    assert held is not None
    assert second.lock_turn("abc") is None
    assert first.lock_turn("abc") is None  # the same process is no exception
    other = second.lock_turn("def")  # another conversation is free
    assert other is not None
    held.release()
    held.release()  # idempotent
    again = second.lock_turn("abc")
    assert again is not None
    again.release()
    other.release()
    assert list((tmp_path / "h.db-turns").iterdir()) == []  # no lock file left behind
    first.close()
    second.close()


def test_a_lock_dropped_without_release_is_freed(tmp_path: Path) -> None:
    history = History(tmp_path / "h.db")
    assert history.lock_turn("abc") is not None  # not kept: collected at once
    gc.collect()
    held = history.lock_turn("abc")
    assert held is not None
    held.release()
    history.close()


def test_a_stale_lock_file_does_not_block(tmp_path: Path) -> None:
    history = History(tmp_path / "h.db")
    held = history.lock_turn("abc")
    assert held is not None
    [lock_file] = (tmp_path / "h.db-turns").iterdir()
    held.release()
    lock_file.write_text("12345\n")  # left by a process that died
    held = history.lock_turn("abc")
    assert held is not None
    held.release()
    history.close()
