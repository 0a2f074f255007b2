"""A conversation's own instructions (its menu): they replace the Instructions personnelles."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QPlainTextEdit, QVBoxLayout, QWidget

from loki_desktop.core.i18n import _
from loki_desktop.core.settings import MAX_INSTRUCTIONS_CHARS, Settings
from loki_desktop.ui.qt_helpers import label


class ConversationInstructionsDialog(QDialog):
    """Edits `settings.conversation_instructions[conversation_id]`; empty removes them.
    `save` writes the settings file once they changed."""

    def __init__(
        self,
        settings: Settings,
        conversation_id: str,
        title: str,
        save: Callable[[], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("ConversationInstructions")
        self.setWindowTitle(_("Instructions de « {title} »").format(title=title))
        self.resize(560, 320)
        self.settings = settings
        self.conversation_id = conversation_id
        self.save = save
        layout = QVBoxLayout(self)
        layout.addWidget(
            label(
                _(
                    "Pour cette conversation seulement, à la place de vos Instructions "
                    "personnelles (vide : celles-ci s'appliquent)."
                ),
                "FieldHelp",
                wrap=True,
            )
        )
        self.text = QPlainTextEdit()
        self.text.setPlainText(settings.conversation_instructions.get(conversation_id, ""))
        layout.addWidget(self.text, 1)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.save_button = buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setText(_("Enregistrer"))
        buttons.button(QDialogButtonBox.StandardButton.Cancel).setText(_("Annuler"))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.accepted.connect(self._apply)
        self.finished.connect(self.deleteLater)

    def _apply(self) -> None:
        text = self.text.toPlainText().strip()[:MAX_INSTRUCTIONS_CHARS]
        kept = self.settings.conversation_instructions
        if text:
            kept[self.conversation_id] = text
        else:
            kept.pop(self.conversation_id, None)
        self.save()
