"""The composer: Enter sends, Shift+Enter breaks the line, the button becomes Stop while busy.

Images come in three ways (the attach button, a drop on the window, a paste) and all go
through `attach_mime` / `attach_paths`, then the core's checks (`core.images`), so the
window refuses what the CLI refuses, with the same sentences.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtGui import QFontMetrics, QKeyEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from loki_desktop.core.i18n import N_, _
from loki_desktop.core.image_attachment import ImageAttachment
from loki_desktop.ui.chat.attachments import IMAGE_FILTER, Attachments
from loki_desktop.ui.qt_helpers import button, label, set_state

MAX_LINES = 8


class ComposerInput(QPlainTextEdit):
    """The text box. Images pasted or dropped on it become attachments, not text."""

    submitted = Signal()
    escape_pressed = Signal()
    images_given = Signal(QMimeData)
    edit_last_requested = Signal()  # Ctrl+↑ in the empty box: edit the last message sent

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return Attachments.offers_images(source) or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        if Attachments.offers_images(source):
            self.images_given.emit(source)
            return
        super().insertFromMimeData(source)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.insertPlainText("\n")
            else:
                self.submitted.emit()
            return
        if event.key() == Qt.Key.Key_Escape:
            self.escape_pressed.emit()
            return
        ctrl = event.modifiers() & Qt.KeyboardModifier.ControlModifier
        if event.key() == Qt.Key.Key_Up and ctrl and not self.toPlainText():
            self.edit_last_requested.emit()
            return
        super().keyPressEvent(event)


HINT = N_("Entrée : envoyer · Maj+Entrée : nouvelle ligne · Échap : arrêter")
EDIT_HINT = N_(
    "Modification de votre message : Entrée l'envoie comme nouvelle version · Échap : annuler"
)


class Composer(QFrame):
    """Where the user writes. Emits `send_requested(text, images)` and `stop_requested`."""

    send_requested = Signal(str, tuple)
    stop_requested = Signal()
    edit_cancelled = Signal()  # Échap while one of the person's messages is being edited

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Composer")
        self.busy = False
        # the text as sent (the MCP resources attached by "@" join it: ui.mcp.composer)
        self.before_send: Callable[[str], str] = lambda text: text
        outer = QVBoxLayout(self)
        outer.setContentsMargins(10, 8, 10, 6)
        outer.setSpacing(4)
        self.attachments = Attachments()
        outer.addWidget(self.attachments)
        row = QHBoxLayout()
        row.setSpacing(10)
        self.attach_button = button(_("+ Image"))
        self.attach_button.setObjectName("AttachButton")
        self.attach_button.clicked.connect(self.choose_images)
        self.input = ComposerInput()
        self.input.setObjectName("ComposerInput")
        self.input.setPlaceholderText(_("Écrivez à Loki…"))
        self.input.setTabChangesFocus(True)
        row.addWidget(self.input, 1)
        row.addWidget(self.attach_button, 0, Qt.AlignmentFlag.AlignBottom)
        self.button = QPushButton(_("Envoyer"))
        self.button.setObjectName("SendButton")
        self.button.setProperty("mode", "send")
        row.addWidget(self.button, 0, Qt.AlignmentFlag.AlignBottom)
        outer.addLayout(row)
        self.editing = False  # the text replaces one of the person's messages when sent
        self.hint = label(_(HINT), "ComposerHint")
        outer.addWidget(self.hint)
        self.input.submitted.connect(self.submit)
        self.input.images_given.connect(self.attachments.attach_mime)
        self.input.escape_pressed.connect(self.escape)
        self.input.textChanged.connect(self._fit_height)
        self.button.clicked.connect(self._on_button)
        self._fit_height()

    def text(self) -> str:
        return self.input.toPlainText()

    def set_text(self, text: str) -> None:
        self.input.setPlainText(text)

    def keep_draft(self, text: str, images: tuple[ImageAttachment, ...]) -> None:
        """A message not sent (the quick prompt answers there): back here, to send later."""
        self.set_text(text)
        self.attachments.restore(images)

    def suggest(self, text: str) -> None:
        """A suggestion of the welcome page, ready to edit or send."""
        self.set_text(text)
        self.input.setFocus()

    def set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.button.setText(_("Arrêter") if busy else _("Envoyer"))
        set_state(self.button, "mode", "stop" if busy else "send")

    def set_vision(self, refusal: str) -> None:
        """Images allowed (empty `refusal`), or not, with the reason in the tooltip."""
        self.attachments.set_refusal(refusal)
        self.attach_button.setEnabled(not refusal)
        self.attach_button.setToolTip(
            refusal
            or _(
                "Joindre des images (PNG, JPEG, WebP, GIF) ; les glisser ou les coller marche aussi"
            )
        )

    def choose_images(self) -> QFileDialog:
        """The attach button: a file dialog (not modal to the loop: its choice arrives later)."""
        dialog = QFileDialog(self.window(), _("Joindre des images"))
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        dialog.setNameFilter(_("Images ({patterns})").format(patterns=IMAGE_FILTER))
        dialog.filesSelected.connect(self.attachments.attach_paths)
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return dialog

    def submit(self) -> None:
        text = self.input.toPlainText().strip()
        if (not text and not self.attachments.images) or self.busy:
            return
        if self.attachments.images and self.attachments.refusal:
            # the model changed since they were attached: keep everything, say why
            self.attachments.show_problem(self.attachments.refusal)
            return
        self.input.clear()
        self.send_requested.emit(self.before_send(text), self.attachments.take())

    def _on_button(self) -> None:
        if self.busy:
            self.stop_requested.emit()
        else:
            self.submit()

    def set_editing(self, editing: bool) -> None:
        """Say that the next send replaces a message (a new version), and how to cancel."""
        self.editing = editing
        self.hint.setText(_(EDIT_HINT) if editing else _(HINT))

    def escape(self) -> None:
        """Échap: stop the answer being written, else drop the edit under way."""
        if self.busy:
            self.stop_requested.emit()
        elif self.editing:
            self.input.clear()
            self.set_editing(False)
            self.edit_cancelled.emit()

    def _fit_height(self) -> None:
        lines = max(2, min(MAX_LINES, self.input.document().blockCount()))
        spacing = QFontMetrics(self.input.font()).lineSpacing()
        self.input.setFixedHeight(lines * spacing + 14)
