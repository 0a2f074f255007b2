"""Asking before a shell command runs (or a file is written): the Approver port, by dialog."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from loki_desktop.core.file_change import FileChange
from loki_desktop.core.i18n import _
from loki_desktop.ui.changes.decision_row import DecisionRow
from loki_desktop.ui.qt_helpers import label
from loki_desktop.ui.text.markdown_render import MarkdownRenderer
from loki_desktop.ui.theme import LIGHT


class ApprovalDialog(QDialog):
    """Shows the exact command and its folder; Allow once / Deny, and "always" for this chat."""

    def __init__(self, command: str, cwd: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ApprovalDialog")
        self.setWindowTitle(_("Autoriser une commande ?"))
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setMinimumWidth(520)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 18, 20, 18)
        layout.setSpacing(10)
        layout.addWidget(label(_("Loki veut lancer une commande"), "PageTitle"))
        layout.addWidget(
            label(
                _("Elle s'exécutera sur votre ordinateur avec vos droits. Lisez-la avant."),
                "PageIntro",
                wrap=True,
            )
        )
        self.command_view = QPlainTextEdit(command)
        self.command_view.setObjectName("ToolArgs")
        self.command_view.setReadOnly(True)
        self.command_view.setFixedHeight(90)
        layout.addWidget(self.command_view)
        self.folder_label = label(_("Dossier : {cwd}").format(cwd=cwd), "CardMono", wrap=True)
        self.folder_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.folder_label)
        # kept: its slot lives as long as the dialog
        self.decision = decision = DecisionRow(
            self, layout, _("Toujours autoriser cette commande dans cette conversation")
        )
        self.always = decision.always
        self.deny_button = decision.deny_button  # the default: Enter never approves
        self.allow_button = decision.allow_button


class ShellApprover:
    """The Approver of one conversation: awaits the dialog, never blocks the event loop.

    It asks before a shell command runs, and before a file is written when the
    "Demander avant d'écrire" setting is on (the core decides when to ask). `renderer`
    gives the colours and code highlighting of the diff a write dialog shows.
    """

    def __init__(
        self,
        parent: QWidget | None = None,
        renderer: Callable[[], MarkdownRenderer] | None = None,
    ) -> None:
        self.parent = parent
        self.renderer = renderer or (lambda: MarkdownRenderer(LIGHT))
        self.always_allowed: set[tuple[str, str]] = set()
        self.writes_allowed = False  # "always" was ticked for a write in this conversation
        self.dialog: QDialog | None = None
        # told when a command waits for the person and when they answered (the tool card)
        self.on_ask: Callable[[str], None] = lambda _command: None
        self.on_answer: Callable[[str, bool], None] = lambda _command, _allowed: None
        # the same for a write waiting for review (its path, workspace-relative)
        self.on_write_ask: Callable[[str], None] = lambda _path: None
        self.on_write_answer: Callable[[str, bool], None] = lambda _path, _allowed: None

    async def approve_shell(self, command: str, cwd: Path) -> bool:
        key = (command, str(cwd))
        if key in self.always_allowed:
            return True
        dialog = ApprovalDialog(command, cwd, self.parent)
        self.on_ask(command)
        allowed, always = await self._ask(dialog, dialog.always)
        if always:
            self.always_allowed.add(key)
        self.on_answer(command, allowed)
        return allowed

    async def approve_write(self, change: FileChange, cwd: Path) -> bool:
        if self.writes_allowed:
            return True
        from loki_desktop.ui.changes.write_approval import WriteApprovalDialog

        dialog = WriteApprovalDialog(change, cwd, self.renderer(), self.parent)
        self.on_write_ask(change.path)  # its card and the status line: EN ATTENTE
        allowed, always = await self._ask(dialog, dialog.always)
        if always:
            self.writes_allowed = True
        self.on_write_answer(change.path, allowed)
        return allowed

    async def approve_unkept_write(self, path: str, reason: str, cwd: Path) -> bool:
        """Asked each time (never "always"): the person lets this one write lose its past."""
        from loki_desktop.ui.changes.unkept_write import UnkeptWriteDialog

        dialog = UnkeptWriteDialog(path, reason, cwd, self.parent)
        allowed, _always = await self._ask(dialog, None)
        return allowed

    async def _ask(self, dialog: QDialog, always: QCheckBox | None) -> tuple[bool, bool]:
        """(allowed, always) once the person answered the window-modal dialog."""
        answer: asyncio.Future[tuple[bool, bool]] = asyncio.get_running_loop().create_future()

        def finished(result: int) -> None:
            if not answer.done():
                accepted = result == QDialog.DialogCode.Accepted
                ticked = always is not None and always.isChecked()
                answer.set_result((accepted, accepted and ticked))

        dialog.finished.connect(finished)
        self.dialog = dialog
        dialog.open()  # window-modal, returns at once: the loop keeps running
        try:
            return await answer
        finally:
            # a cancelled turn (Stop, Esc) closes the dialog it was waiting on
            self.dialog = None
            dialog.finished.disconnect(finished)
            dialog.close()
            dialog.deleteLater()
