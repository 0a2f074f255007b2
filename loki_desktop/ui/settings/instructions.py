"""Réglages › Instructions: the person's instructions for every answer, and their prompts."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QHBoxLayout, QPlainTextEdit, QVBoxLayout, QWidget

from loki_desktop.core.i18n import _
from loki_desktop.core.prompt_library import list_prompts
from loki_desktop.core.settings import MAX_INSTRUCTIONS_CHARS, Settings
from loki_desktop.ui.qt_helpers import button, label, set_state


class InstructionsPage(QWidget):
    """*Instructions personnelles* (given to the model in every conversation) and the prompt
    library's files (in the data folder, used with "/" in the composer or `ask --prompt`)."""

    def __init__(self, settings: Settings, prompts_folder: Path) -> None:
        super().__init__()
        self.prompts_folder = prompts_folder
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(10)
        layout.addWidget(label(_("Instructions"), "PageTitle"))
        layout.addWidget(
            label(
                _(
                    "Dites une fois comment vous voulez qu'on vous réponde : Loki le donne au "
                    "modèle dans chaque conversation. Le fichier AGENTS.md du dossier de "
                    "travail, s'il existe, s'y ajoute."
                ),
                "PageIntro",
                wrap=True,
            )
        )
        layout.addWidget(label(_("INSTRUCTIONS PERSONNELLES"), "SidebarCaption"))
        self.instructions = QPlainTextEdit()
        self.instructions.setObjectName("PersonalInstructions")
        self.instructions.setPlaceholderText(
            _("Par exemple : réponds en français, sans jargon ; montre le code complet.")
        )
        self.instructions.setPlainText(settings.instructions)
        layout.addWidget(self.instructions, 1)
        self.count = label("", "FieldHelp")
        layout.addWidget(self.count)
        self.instructions.textChanged.connect(self._count)
        self._count()
        layout.addLayout(self._prompts_head())
        prompts, problems = list_prompts(prompts_folder)
        names = ", ".join(prompt.name for prompt in prompts)
        self.prompts = label(
            names
            or _("Aucun prompt : un fichier .md ou .txt dans le dossier, avec des {{variables}}."),
            "FieldHelp",
            wrap=True,
        )
        layout.addWidget(self.prompts)
        self.problems = [label(problem, "ErrorText", wrap=True) for problem in problems]
        for line in self.problems:
            layout.addWidget(line)

    def _prompts_head(self) -> QHBoxLayout:
        head = QHBoxLayout()
        head.addWidget(label(_("MES PROMPTS"), "SidebarCaption"))
        head.addStretch(1)
        open_folder = button(_("Ouvrir le dossier de mes prompts"))
        open_folder.clicked.connect(self._open_folder)
        head.addWidget(open_folder)
        return head

    def _count(self) -> None:
        used = len(self.instructions.toPlainText())
        self.count.setText(
            _("{used} / {limit} caractères").format(used=used, limit=MAX_INSTRUCTIONS_CHARS)
        )
        set_state(self.count, "state", "error" if used > MAX_INSTRUCTIONS_CHARS else "")

    def apply(self, settings: Settings) -> None:
        settings.instructions = self.instructions.toPlainText().strip()[:MAX_INSTRUCTIONS_CHARS]

    def _open_folder(self) -> None:
        self.prompts_folder.mkdir(parents=True, exist_ok=True)
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.prompts_folder)))
