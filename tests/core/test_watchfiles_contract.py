"""Contract of the one non-public piece of watchfiles we use: `watchfiles._rust_notify`.

Why not the public `watchfiles.watch()`: it builds its `RustNotify` inside the generator,
at the first `next()`, which then blocks until a change; the workspace watcher must know
when every folder is watched (`await watcher.start()` returns then). The Rust backend is
documented ("Rust backend direct usage") but lives in a private module, so the version is
bounded in pyproject.toml and this test pins down exactly what core/watch.py relies on: it
fails on an upgrade that changes it.
"""

from __future__ import annotations

import threading
from pathlib import Path

from watchfiles import Change
from watchfiles._rust_notify import RustNotify

# as core/watch.py calls it: paths, debug, force_polling, poll_delay_ms, recursive,
# ignore_permission_denied
ARGS = (False, False, 300, False, True)


def test_a_change_comes_back_as_a_set_of_int_and_path(tmp_path: Path) -> None:
    notify = RustNotify([str(tmp_path)], *ARGS)
    try:
        (tmp_path / "a.py").write_text("x = 1\n")
        # debounce, step (ms), timeout (0: none), stop event
        changes = notify.watch(400, 50, 0, threading.Event())
    finally:
        notify.close()
    assert isinstance(changes, set)
    assert (int(Change.added), str(tmp_path / "a.py")) in changes
    assert {Change(kind) for kind, _path in changes} <= set(Change)


def test_it_is_not_recursive(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    notify = RustNotify([str(tmp_path)], *ARGS)
    try:
        (tmp_path / "sub" / "inside.py").write_text("x = 1\n")
        (tmp_path / "top.py").write_text("x = 1\n")
        changes = notify.watch(400, 50, 0, threading.Event())
    finally:
        notify.close()
    paths = {path for _kind, path in changes}
    assert str(tmp_path / "top.py") in paths
    assert str(tmp_path / "sub" / "inside.py") not in paths


def test_a_set_stop_event_ends_the_wait_and_a_timeout_is_said(tmp_path: Path) -> None:
    notify = RustNotify([str(tmp_path)], *ARGS)
    try:
        assert notify.watch(400, 50, 10, threading.Event()) == "timeout"
        stop = threading.Event()
        stop.set()
        assert notify.watch(400, 50, 0, stop) == "stop"
    finally:
        notify.close()


def test_a_folder_gone_before_the_watch_is_refused_or_skipped(tmp_path: Path) -> None:
    """core/watch.py retries without it on FileNotFoundError; 1.3 skips it by itself."""
    (tmp_path / "here").mkdir()
    try:
        notify = RustNotify([str(tmp_path / "gone"), str(tmp_path / "here")], *ARGS)
    except FileNotFoundError:
        return
    try:
        (tmp_path / "here" / "a.py").write_text("x = 1\n")
        changes = notify.watch(400, 50, 0, threading.Event())
    finally:
        notify.close()
    assert (int(Change.added), str(tmp_path / "here" / "a.py")) in changes


def test_change_values_are_the_ones_compared() -> None:
    assert (int(Change.added), int(Change.modified), int(Change.deleted)) == (1, 2, 3)
