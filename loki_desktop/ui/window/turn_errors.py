"""Errors told once: the banner for a missing server ("connecté" when back), a quiet card."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer, Signal

from loki_desktop.core.i18n import _
from loki_desktop.ui.qt_helpers import set_state
from loki_desktop.ui.window.backend_status import OllamaBanner

if TYPE_CHECKING:
    from collections.abc import Callable

    from loki_desktop.ui.qt_helpers import OwnedTasks
    from loki_desktop.ui.sessions import Session

CONNECTED_MS = 3000  # how long "Connecté" stays once the server is back
SERVER_DOWN = ("unreachable", "no_answer", "error")  # the server itself, not a model choice


class Banner(OllamaBanner):
    """The Ollama banner, knowing which problem it shows, and saying when it is solved.
    `back_online` when the server answers again after being down (cards that said it was
    not there change their words)."""

    back_online = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.problem = ""
        self.list_below = True  # the welcome page (and its first-run list) is on screen
        self._host = ""
        self._connected = QTimer(self)
        self._connected.setSingleShot(True)
        self._connected.setInterval(CONNECTED_MS)
        self._connected.timeout.connect(self._end_connected)

    def _showing(self, problem: str) -> None:
        self._connected.stop()
        self.problem = problem
        set_state(self, "state", "problem")
        self.body.show()
        self.retry_button.show()
        self.settings_button.show()

    def show_unreachable(self, host: str) -> None:
        self._showing("unreachable")
        super().show_unreachable(host)

    def show_no_answer(self, host: str, message: str) -> None:
        self._showing("no_answer")
        super().show_no_answer(host, message)

    def show_error(self, host: str, message: str) -> None:
        self._showing("error")
        super().show_error(host, message)

    def show_no_model(self, host: str, list_below: bool | None = None) -> None:
        self._showing("no_model")
        self._host = host
        super().show_no_model(host, self.list_below if list_below is None else list_below)

    def set_list_below(self, below: bool) -> None:
        """The page under the banner changed: its words follow (« ci-dessous » or not)."""
        self.list_below = below
        if self.problem == "no_model" and not self.isHidden():
            self.show_no_model(self._host)

    def show_missing_model(self, host: str, model: str) -> None:
        self._showing("missing_model")
        super().show_missing_model(host, model)

    @property
    def server_down(self) -> bool:
        return self.isVisible() and self.problem in SERVER_DOWN

    def clear(self, host: str) -> None:
        """Nothing wrong (any more): after a server problem, "Connecté" for a moment."""
        was_down = self.problem in SERVER_DOWN and not self.isHidden()
        self.problem = ""
        if not was_down:
            if not self._connected.isActive():
                self.hide()
            return
        self.back_online.emit()
        self.title.setText(_("Connecté à {host}").format(host=host))
        self.body.hide()
        self.retry_button.hide()
        self.settings_button.hide()
        set_state(self, "state", "ok")
        self.show()
        self._connected.start()

    def _end_connected(self) -> None:
        self.hide()
        set_state(self, "state", "problem")


def watch_turn(
    session: Session,
    tasks: OwnedTasks,
    check_server: Callable[[], asyncio.Task[None]],
    banner: OllamaBanner,
) -> None:
    """Hook a session's turns: a failed one asks whether the server is there at all."""
    session.runner.finished.connect(session.view.turn_ended)

    def ended(reason: str) -> None:
        if reason == "error":
            session.after_failure = tasks.spawn(_after_failure(session, check_server, banner))

    session.runner.finished.connect(ended)


async def _after_failure(
    session: Session, check_server: Callable[[], asyncio.Task[None]], banner: OllamaBanner
) -> None:
    check = check_server()
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.shield(check)
    card = session.view.last_error()
    if isinstance(banner, Banner) and banner.server_down and card is not None:
        card.set_offline()
