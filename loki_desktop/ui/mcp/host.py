"""The window's answer to what MCP servers ask of the person (core.mcp.host.McpHost).

Forms and URLs become dialogs (ui.mcp.forms); a sampling request under the "ask" policy
becomes an approval dialog; what the person's model answered (or why it did not) becomes a
card in the conversation on screen. Every dialog is window-modal and awaited: the event loop
keeps running, and a request cancelled meanwhile closes its dialog.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFrame,
    QHBoxLayout,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from loki_desktop.core.i18n import _
from loki_desktop.core.mcp.host import (
    ElicitationAnswer,
    ElicitationRequest,
    SamplingPolicy,
    SamplingReport,
    SamplingRequest,
)
from loki_desktop.ui.chat.items import Chip
from loki_desktop.ui.chat.view import ChatView
from loki_desktop.ui.mcp.forms import request_dialog
from loki_desktop.ui.qt_helpers import button, first_size, label, set_state


async def run_dialog(dialog: QDialog) -> int:
    """Open `dialog` (window-modal, the loop runs on) and wait for its result."""
    done: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def finished(result: int) -> None:
        if not done.done():
            done.set_result(result)

    dialog.finished.connect(finished)
    dialog.open()
    try:
        return await done
    finally:  # also when the request is cancelled (the server gave up, Loki quits)
        dialog.finished.disconnect(finished)
        dialog.close()
        dialog.deleteLater()


class SamplingDialog(QDialog):
    """ "May this server use your model?": the server, its prompt, the model that would answer."""

    def __init__(self, request: SamplingRequest, model: str, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.setObjectName("SamplingDialog")
        title = _("« {name} » demande une réponse à votre modèle").format(name=request.server_label)
        self.setWindowTitle(title)
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setMinimumWidth(540)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 18, 20, 18)
        layout.setSpacing(10)
        layout.addWidget(label(title, "PageTitle", wrap=True))
        intro = _(
            "Votre modèle local ({model}) lira ceci et répondra au serveur, en {n} jetons au "
            "plus. Rien ne quitte votre ordinateur, sauf la réponse envoyée au serveur."
        ).format(model=model or "?", n=request.max_tokens)
        layout.addWidget(label(intro, "PageIntro", wrap=True))
        shown = "\n\n".join(f"[{role}] {text}" for role, text in request.messages)
        if request.system_prompt:
            shown = f"[system] {request.system_prompt}\n\n{shown}"
        self.prompt_view = QPlainTextEdit(shown)
        self.prompt_view.setObjectName("ToolArgs")
        self.prompt_view.setReadOnly(True)
        self.prompt_view.setMinimumHeight(80)  # it takes the room the dialog has, scrolls the rest
        layout.addWidget(self.prompt_view)
        self.always = QCheckBox(_("Toujours autoriser ce serveur"))
        layout.addWidget(self.always)
        row = QHBoxLayout()
        row.addStretch(1)
        self.deny_button = button(_("Refuser"))
        self.allow_button = button(_("Autoriser"), primary=True)
        row.addWidget(self.deny_button)
        row.addWidget(self.allow_button)
        layout.addLayout(row)
        self.deny_button.clicked.connect(self.reject)
        self.allow_button.clicked.connect(self.accept)
        self.deny_button.setDefault(True)
        # its wrapped texts need more than the height Qt guesses for a new window
        first_size(self, QSize(600, 520))


class SamplingCard(QFrame):
    """In the conversation: which server asked the person's model what, and its answer."""

    def __init__(self, report: SamplingReport) -> None:
        super().__init__()
        self.setObjectName("SamplingCard")
        self.setProperty("card", True)
        self.report = report
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(6)
        head = QHBoxLayout()
        head.setSpacing(8)
        ok = report.ok
        head.addWidget(Chip(_("MODÈLE LOCAL") if ok else _("REFUSÉ"), "ok" if ok else "error"))
        name = report.request.server_label
        title = (
            _("« {name} » a demandé une réponse à {model}").format(name=name, model=report.model)
            if ok
            else _("« {name} » a demandé une réponse à votre modèle").format(name=name)
        )
        self.title = label(title, "CardTitle", wrap=True)
        head.addWidget(self.title, 1)
        layout.addLayout(head)
        set_state(self, "state", "ok" if ok else "error")
        self.prompt = label(
            _("Demande : {text}").format(text=report.request.prompt), "CardDetail", wrap=True
        )
        layout.addWidget(self.prompt)
        # a label, not a text box: it wraps and grows with the answer (bounded by maxTokens)
        self.answer = label(report.answer if ok else report.refused, "SamplingAnswer", wrap=True)
        self.answer.setTextFormat(Qt.TextFormat.PlainText)
        self.answer.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.answer)


class WindowMcpHost:
    """The McpHost of the window. `view()` gives the conversation on screen (None: none)."""

    def __init__(
        self,
        parent: QWidget,
        view: Callable[[], ChatView | None],
        model: Callable[[], str],
        set_policy: Callable[[str, SamplingPolicy], None],
        notify: Callable[[str], None],
    ) -> None:
        self.parent = parent
        self.view = view
        self.model = model
        self.set_policy = set_policy
        self.notify = notify
        self.dialog: QDialog | None = None  # the one on screen (tests fill it)
        self.last_card: SamplingCard | None = None

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        dialog = request_dialog(request, self.parent)
        self.dialog = dialog
        try:
            await run_dialog(dialog)
        finally:
            self.dialog = None
        return dialog.answer

    async def approve_sampling(self, request: SamplingRequest) -> bool:
        dialog = SamplingDialog(request, self.model(), self.parent)
        self.dialog = dialog
        try:
            allowed = await run_dialog(dialog) == QDialog.DialogCode.Accepted
        finally:
            self.dialog = None
        if allowed and dialog.always.isChecked():
            self.set_policy(request.server_id, "always")
        return allowed

    def sampling_done(self, report: SamplingReport) -> None:
        view = self.view()
        if view is None:  # the welcome page: no conversation to show it in
            self.notify(report.refused or self._said(report))
            return
        self.last_card = view.add_card(SamplingCard(report))

    @staticmethod
    def _said(report: SamplingReport) -> str:
        return _("Votre modèle ({model}) a répondu à « {name} ».").format(
            model=report.model, name=report.request.server_label
        )
