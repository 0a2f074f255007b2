"""Small Qt helpers shared by the widgets: style-sheet states and owned background tasks."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QLabel, QPushButton, QSizePolicy, QWidget

from loki_desktop.core.i18n import _

log = logging.getLogger(__name__)


def set_state(widget: QWidget, name: str, value: object) -> None:
    """Set a property the style sheet matches on, and repaint with it."""
    widget.setProperty(name, value)
    style = widget.style()
    style.unpolish(widget)
    style.polish(widget)
    widget.update()


def label(text: str, object_name: str = "", *, wrap: bool = False) -> QLabel:
    widget = QLabel(text)
    if object_name:
        widget.setObjectName(object_name)
    widget.setWordWrap(wrap)
    return widget


class ElidedLabel(QLabel):
    """A one-line label that ends with "…" when it does not fit (the full text in its tooltip)."""

    def __init__(self, text: str = "", object_name: str = "") -> None:
        super().__init__()
        if object_name:
            self.setObjectName(object_name)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.full_text = ""
        self.set_full_text(text)

    def set_full_text(self, text: str) -> None:
        self.full_text = text
        self.setToolTip(text)
        self._elide()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        metrics = QFontMetrics(self.font())
        self.setText(metrics.elidedText(self.full_text, Qt.TextElideMode.ElideRight, self.width()))


def button(
    text: str, *, primary: bool = False, flat: bool = False, danger: bool = False
) -> QPushButton:
    widget = QPushButton(text)
    if primary:
        widget.setProperty("primary", True)
    if flat:
        widget.setProperty("flat", True)
    if danger:
        widget.setProperty("danger", True)
    return widget


class OwnedTasks:
    """Tasks a window owns: kept referenced, errors logged, all cancelled on close."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background task failed", exc_info=task.exception())

    async def cancel_all(self) -> None:
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    def cancel_soon(self) -> None:
        """Cancel without waiting (from a slot that cannot await)."""
        for task in list(self._tasks):
            task.cancel()

    def __len__(self) -> int:
        return len(self._tasks)


async def open_in_browser(url: str) -> None:
    """Show the authorization page in the person's browser."""
    if not QDesktopServices.openUrl(QUrl(url)):
        raise RuntimeError(_("aucun navigateur n'a pu s'ouvrir sur {url}").format(url=url))
