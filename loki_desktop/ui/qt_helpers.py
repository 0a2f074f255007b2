"""Small Qt helpers shared by the widgets: style-sheet states and owned background tasks."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from PySide6.QtCore import QSize, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QFontMetrics, QGuiApplication, QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QFrame,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QWidget,
)

from loki_desktop.core.i18n import _

log = logging.getLogger(__name__)


def set_state(widget: QWidget, name: str, value: object) -> None:
    """Set a property the style sheet matches on, and repaint with it."""
    widget.setProperty(name, value)
    style = widget.style()
    style.unpolish(widget)
    style.polish(widget)
    widget.update()


# what a window manager's frame adds around a dialog (title bar, borders), before it is shown
FRAME_GUESS = QSize(8, 40)


def scroll_page(content: QWidget) -> QScrollArea:
    """`content` in a frameless scroll area: a page taller or wider than its dialog scrolls
    instead of pushing the dialog past the screen (or squeezing its fields)."""
    area = QScrollArea()
    area.setObjectName("PageScroll")
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(content)
    return area


def narrow_combo(combo: QComboBox, characters: int = 16) -> QComboBox:
    """A combo box whose longest item (a long model name) is no minimum width: the closed box
    shows what fits, its list shows every item whole."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(characters)
    return combo


def wrapping_form() -> QFormLayout:
    """A form whose field goes under its label when both do not fit side by side."""
    form = QFormLayout()
    form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
    return form


def first_size(window: QWidget, wanted: QSize) -> None:
    """Give a dialog its first size: `wanted`, or the available screen less a frame when that
    is smaller (a laptop), so its buttons are on screen."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    room = screen.availableGeometry().size() - FRAME_GUESS
    window.resize(wanted.boundedTo(room))


def label(text: str, object_name: str = "", *, wrap: bool = False) -> QLabel:
    widget = QLabel(text)
    if object_name:
        widget.setObjectName(object_name)
    widget.setWordWrap(wrap)
    return widget


class ElidedLabel(QLabel):
    """A label whose lines end with "…" when they do not fit (the full text in its tooltip)."""

    def __init__(self, text: str = "", object_name: str = "") -> None:
        super().__init__()
        if object_name:
            self.setObjectName(object_name)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.full_text = ""
        self.set_full_text(text)

    def sizeHint(self) -> QSize:
        """The whole text's size: what it asks for (it takes less, elided, when it must)."""
        metrics = QFontMetrics(self.font())
        lines = getattr(self, "full_text", "").split("\n")  # (asked before it is set)
        width = max(metrics.horizontalAdvance(line) for line in lines)
        margins = self.contentsMargins()
        hint = super().sizeHint()
        return QSize(width + margins.left() + margins.right() + 2 * self.margin(), hint.height())

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())  # any width: it elides

    def set_full_text(self, text: str) -> None:
        self.full_text = text
        self.setToolTip(text)
        self._elide()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        metrics = QFontMetrics(self.font())
        width = self.width()
        lines = self.full_text.split("\n")  # each line elided on its own (a list of paths)
        elide = Qt.TextElideMode.ElideRight
        self.setText("\n".join(metrics.elidedText(line, elide, width) for line in lines))


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
