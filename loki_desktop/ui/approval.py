"""Asking before a shell command runs: the core's Approver port, answered by a dialog."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QHBoxLayout,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from loki_desktop.core.i18n import _
from loki_desktop.ui.qt_helpers import button, label


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
        self.always = QCheckBox(_("Toujours autoriser cette commande dans cette conversation"))
        layout.addWidget(self.always)
        row = QHBoxLayout()
        row.addStretch(1)
        self.deny_button = button(_("Refuser"))
        self.allow_button = button(_("Autoriser une fois"), primary=True)
        row.addWidget(self.deny_button)
        row.addWidget(self.allow_button)
        layout.addLayout(row)
        self.deny_button.clicked.connect(self.reject)
        self.allow_button.clicked.connect(self.accept)
        self.always.toggled.connect(self._on_always)
        self.deny_button.setDefault(True)  # Enter never runs a command by accident

    def _on_always(self, checked: bool) -> None:
        self.allow_button.setText(_("Autoriser") if checked else _("Autoriser une fois"))


class ShellApprover:
    """The Approver of one conversation: awaits the dialog, never blocks the event loop."""

    def __init__(self, parent: QWidget | None = None) -> None:
        self.parent = parent
        self.always_allowed: set[tuple[str, str]] = set()
        self.dialog: ApprovalDialog | None = None

    async def approve_shell(self, command: str, cwd: Path) -> bool:
        key = (command, str(cwd))
        if key in self.always_allowed:
            return True
        dialog = ApprovalDialog(command, cwd, self.parent)
        answer: asyncio.Future[tuple[bool, bool]] = asyncio.get_running_loop().create_future()

        def finished(result: int) -> None:
            if not answer.done():
                accepted = result == QDialog.DialogCode.Accepted
                answer.set_result((accepted, accepted and dialog.always.isChecked()))

        dialog.finished.connect(finished)
        self.dialog = dialog
        dialog.open()  # window-modal, returns at once: the loop keeps running
        try:
            allowed, always = await answer
        finally:
            # a cancelled turn (Stop, Esc) closes the dialog it was waiting on
            self.dialog = None
            dialog.finished.disconnect(finished)
            dialog.close()
            dialog.deleteLater()
        if always:
            self.always_allowed.add(key)
        return allowed
