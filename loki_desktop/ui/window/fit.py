"""The window's size and place: fits the screen, restored onto it, 800×560 at least."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRect, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

FIRST_SIZE = QSize(1240, 820)  # what a new window asks for on a roomy screen
MIN_SIZE = QSize(800, 560)  # every control stays reachable down to this
# what a window manager's frame adds (borders, title bar), guessed before it has framed it
FRAME_GUESS = QSize(8, 40)


def fit_rect(wanted: QSize, available: QRect, minimum: QSize = MIN_SIZE) -> QRect:
    """`wanted`, shrunk to fit `available` (the screen less its panels), centred on it.

    Never below `minimum` unless the screen itself is smaller."""
    width = min(max(wanted.width(), min(minimum.width(), available.width())), available.width())
    height = min(
        max(wanted.height(), min(minimum.height(), available.height())), available.height()
    )
    left = available.x() + (available.width() - width) // 2
    top = available.y() + (available.height() - height) // 2
    return QRect(left, top, width, height)


def clamp_rect(current: QRect, available: QRect) -> QRect:
    """A restored geometry made to fit on `available` (the screen may have shrunk since)."""
    if available.contains(current):
        return current
    fitted = fit_rect(current.size(), available)
    left = min(max(current.x(), available.x()), available.right() - fitted.width() + 1)
    top = min(max(current.y(), available.y()), available.bottom() - fitted.height() + 1)
    return QRect(left, top, fitted.width(), fitted.height())


def available_geometry(widget: QWidget) -> QRect:
    screen = widget.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry()


def minimum_for(available: QRect, extra: QSize | None = None) -> QSize:
    """The window's minimum on this screen: MIN_SIZE, or the screen less the window's frame
    when the screen is smaller (an 800×560 screen: the frame must fit too)."""
    frame = extra if extra is not None else QSize(0, 0)
    return QSize(
        min(MIN_SIZE.width(), available.width() - frame.width()),
        min(MIN_SIZE.height(), available.height() - frame.height()),
    )


def place_window(window: QWidget, ui: dict[str, object]) -> None:
    """The saved geometry, else the first size; either way on the screen as it is now."""
    available = available_geometry(window)
    extra = _frame_extra(window)
    window.setMinimumSize(minimum_for(available, extra))
    geometry = ui.get("geometry")
    if isinstance(geometry, str) and window.restoreGeometry(
        QByteArray.fromBase64(geometry.encode())
    ):
        if not window.isMaximized() and not window.isFullScreen():
            framed = window.geometry().adjusted(0, -extra.height(), extra.width(), 0)
            fitted = clamp_rect(framed, available)
            # left alone when it fits: placing it again by a guessed frame moved it by the
            # frame's border at every start
            if fitted != framed:
                _set_frame(window, fitted, extra)
        return
    wanted = QSize(FIRST_SIZE.width() + extra.width(), FIRST_SIZE.height() + extra.height())
    _set_frame(window, fit_rect(wanted, available), extra)


def _frame_extra(window: QWidget) -> QSize:
    """What the window manager's frame adds around the window (a guess before it is shown)."""
    frame, inner = window.frameGeometry(), window.geometry()
    extra = QSize(frame.width() - inner.width(), frame.height() - inner.height())
    if not window.isVisible() and extra.height() <= 0:
        return FRAME_GUESS
    return extra


def _set_frame(window: QWidget, frame: QRect, extra: QSize) -> None:
    """Place the window so that its frame (title bar included) is `frame`."""
    window.resize(
        max(frame.width() - extra.width(), window.minimumWidth()),
        max(frame.height() - extra.height(), window.minimumHeight()),
    )
    window.move(frame.topLeft())
