"""A moving bar and a seconds count: something runs, for this long (an MCP test)."""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QWidget

from loki_desktop.core.i18n import _
from loki_desktop.ui.qt_helpers import label


class BusyLine(QWidget):
    """Hidden until `start`; an indeterminate bar (it moves) and "n s" until `stop`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(8)
        self.bar = QProgressBar()
        self.bar.setObjectName("BusyBar")
        self.bar.setRange(0, 0)  # no known end: the bar runs back and forth
        self.bar.setTextVisible(False)
        self.bar.setFixedHeight(10)
        row.addWidget(self.bar, 1)
        self.seconds = label("", "CardDetail")
        row.addWidget(self.seconds)
        self._started = 0.0
        self._timer = QTimer(self)
        self._timer.setInterval(500)
        self._timer.timeout.connect(self._count)
        self.hide()

    @property
    def running(self) -> bool:
        return self._timer.isActive()

    def start(self) -> None:
        self._started = time.monotonic()
        self._count()
        self._timer.start()
        self.show()

    def stop(self) -> None:
        self._timer.stop()
        self.hide()

    def _count(self) -> None:
        self.seconds.setText(_("{s} s").format(s=int(time.monotonic() - self._started)))
