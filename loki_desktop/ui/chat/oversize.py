"""Files larger than the context left: said before sending, with an offer to send their start."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMessageBox, QWidget

from loki_desktop.core.attachments.loading import fit_files
from loki_desktop.core.attachments.model import FileAttachment
from loki_desktop.core.i18n import _
from loki_desktop.core.ports import BackendError

if TYPE_CHECKING:  # the agent stack is imported at the first turn, not at start-up
    from loki_desktop.core.agent import Agent


async def fitted_files(
    make_agent: Callable[[], Agent],
    words: str,
    files: tuple[FileAttachment, ...],
    parent: QWidget,
) -> tuple[FileAttachment, ...] | None:
    """The files to send: all of them when they fit, their first part when the person says
    so; None when they would rather not send (the message goes back to the composer)."""
    from loki_desktop.core.room import room_for_files

    try:
        room = await room_for_files(make_agent(), words)
    except BackendError:
        return files  # no server, no model: the turn says so in its own words
    kept, overflow = fit_files(files, room)
    if overflow is None:
        return files
    box = QMessageBox(parent)
    box.setObjectName("OversizeQuestion")
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle(_("Fichiers trop longs pour le contexte"))
    box.setText(overflow.message())
    box.setInformativeText(_("Envoyer seulement leur début ?"))
    send = box.addButton(_("Envoyer le début"), QMessageBox.ButtonRole.AcceptRole)
    box.addButton(_("Annuler"), QMessageBox.ButtonRole.RejectRole)
    answered: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def finished(result: int) -> None:
        if not answered.done():
            answered.set_result(result)

    box.finished.connect(finished)
    box.open()  # window-modal: the loop (a streaming answer elsewhere) runs on
    try:
        await answered
    finally:
        box.deleteLater()
    return kept if box.clickedButton() is send else None
