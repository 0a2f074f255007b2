"""Qt tests: offscreen, on a qasync loop (asyncio driven by Qt's own event loop).

pytest-asyncio builds each test's loop through `pytest_asyncio_loop_factories`, so an
`async def` test runs inside the Qt event loop and awaits the window's real tasks.
Windows are opened *inside* the test (`tests.ui.helpers.open_window`), never in an
async fixture: pytest-qt processes Qt events between a test's phases, when no asyncio
loop runs, so work left in flight by a fixture would resume outside any loop.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication

from loki_desktop.app import build_services
from loki_desktop.core.services import Services

# Offscreen, on a desktop-sized screen (the default 800x600 would clamp restored windows).
# Set before the QApplication exists (importing Qt does not create it).
# Test workers (pytest-xdist) start side by side: each writes its own copy and swaps it in
# whole, so no worker's Qt ever reads a file another one is halfway through writing.
_SCREEN = Path(tempfile.gettempdir()) / "loki-tests-offscreen-screen.json"
_MINE = _SCREEN.with_name(f"{_SCREEN.name}.{os.getpid()}")
_MINE.write_text(
    json.dumps({"screens": [{"name": "test", "x": 0, "y": 0, "width": 1600, "height": 1000}]})
)
_MINE.replace(_SCREEN)
os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={_SCREEN}"

# The offscreen platform has no window manager: it says so each time a window's size limits
# change or a window (a tooltip) is raised; the real platforms do not.
OFFSCREEN_NOISE = r"This plugin does not support (propagateSizeHints|raise)\(\)"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if item.path.is_relative_to(here):
            item.add_marker(pytest.mark.qt_log_ignore(OFFSCREEN_NOISE))


def pytest_asyncio_loop_factories(config: Any, item: Any) -> dict[str, Callable[[], Any]]:
    def qt_loop() -> qasync.QEventLoop:
        app = QApplication.instance() or QApplication([])
        # as in the app: closing the last window must not end Qt's loop (and the test's)
        app.setQuitOnLastWindowClosed(False)
        return qasync.QEventLoop(app)

    return {"qt": qt_loop}


@pytest.fixture
def services(loki_home: Path) -> Services:
    return build_services()


@pytest.fixture
def offline_host() -> str:
    """An address where nothing listens (a port we opened and closed)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def silent_host() -> Iterator[str]:
    """A server that accepts connections (they wait in its backlog) and never answers."""
    import socket

    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen(8)
        yield f"http://127.0.0.1:{listening.getsockname()[1]}"


@pytest.fixture
def opened_urls() -> Iterator[list[str]]:
    """URLs the app asked the desktop to open (Qt's own URL handler hook, no xdg-open)."""
    from PySide6.QtCore import QObject, QUrl, Slot

    class Recorder(QObject):
        def __init__(self) -> None:
            super().__init__()
            self.urls: list[str] = []

        @Slot(QUrl)
        def open(self, url: QUrl) -> None:
            self.urls.append(url.toString())

    recorder = Recorder()
    for scheme in ("file", "http", "https"):
        QDesktopServices.setUrlHandler(scheme, recorder, "open")
    yield recorder.urls
    for scheme in ("file", "http", "https"):
        QDesktopServices.unsetUrlHandler(scheme)
