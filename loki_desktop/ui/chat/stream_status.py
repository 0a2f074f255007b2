"""The line above the composer while Loki answers, with a jump back to the newest text."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QFrame, QHBoxLayout, QWidget

from loki_desktop.core.i18n import _
from loki_desktop.ui.chat.view import ChatView
from loki_desktop.ui.qt_helpers import button, label

TICK_MS = 400  # the dots move and the seconds count at this pace (only while answering)


class StreamStatus(QFrame):
    """Shown while the conversation on screen has a turn running."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("StreamStatus")
        row = QHBoxLayout(self)
        row.setContentsMargins(24, 6, 24, 0)
        row.setSpacing(10)
        self.pulse = label("", "StreamPulse")
        self.text = label("", "StreamText")
        row.addWidget(self.pulse)
        row.addWidget(self.text)
        row.addStretch(1)
        self.jump_button = button(_("↓  Aller au plus récent"))
        self.jump_button.setObjectName("JumpToLatest")
        self.jump_button.setToolTip(_("Revenir en bas de la réponse, qui continue d'arriver"))
        self.jump_button.clicked.connect(self._jump)
        self.jump_button.hide()
        row.addWidget(self.jump_button, 0, Qt.AlignmentFlag.AlignRight)
        self.view: ChatView | None = None
        self.busy = False
        self._started = 0.0
        self._tick = 0
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._update)
        self.hide()

    def follow(self, view: ChatView | None, busy: bool) -> None:
        """The conversation on screen is `view`; its turn runs (`busy`) or not."""
        if view is not self.view:
            # an older view may still signal (or be deleted): _update reads self.view only
            self.view = view
            if view is not None:
                view.following_changed.connect(self._on_following)
        if busy and not self.busy:
            self._started = time.monotonic()
            self._tick = 0
        self.busy = busy and view is not None
        self.setVisible(self.busy)
        if self.busy:
            self._timer.start()
        else:
            self._timer.stop()
        self._update()

    def _on_following(self, _following: bool) -> None:
        self._update()

    def _update(self) -> None:
        view = self.view
        self.jump_button.setVisible(self.busy and view is not None and not view.following)
        if not self.busy:
            return
        self._tick += 1
        self.pulse.setText("●" if self._tick % 2 else "○")
        seconds = int(time.monotonic() - self._started)
        waiting = view.waiting_kind() if view is not None else ""
        if waiting == "shell":
            self.text.setText(_("EN ATTENTE de votre accord pour lancer une commande"))
        elif waiting == "write":
            self.text.setText(_("EN ATTENTE de votre accord pour écrire un fichier"))
        else:
            self.text.setText(_("Loki répond… {s} s").format(s=seconds))

    def _jump(self) -> None:
        if self.view is not None:
            self.view.scroll_to_bottom()
        self._update()
