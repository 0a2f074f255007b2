"""Qt tests run offscreen on a qasync loop (asyncio on top of Qt's own event loop)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import qasync  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def pytest_asyncio_loop_factories(config, item):
    def factory() -> qasync.QEventLoop:
        app = QApplication.instance() or QApplication([])
        return qasync.QEventLoop(app)

    return {"qasync": factory}
