"""The page of a new conversation: who Loki is, and a few ways to start."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QBoxLayout, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from loki_desktop.core.i18n import _
from loki_desktop.ui.qt_helpers import button, label, scroll_page
from loki_desktop.ui.theme import app_icon

INTRO_PX = 620


def intro_text(folder: str) -> str:
    """Who Loki is, then the folder it works in, or the invitation to choose one."""
    about = _(
        "Loki fait travailler vos modèles Ollama sur cet ordinateur, avec des outils, "
        "des méthodes d'expert et une vérification du code qu'il écrit."
    )
    if folder:
        where = _("Il travaille dans le dossier « {name} ».").format(
            name=Path(folder).name or folder
        )
    else:
        where = _("Choisissez un dossier de travail pour lui donner ses outils de fichiers.")
    return f"{about} {where}"


class WelcomePage(QWidget):
    """Shown before the first message of a conversation; a suggestion fills the composer."""

    suggestion_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ChatArea")
        # the page scrolls: on a small screen (or under the first-run choice of a model) its
        # content is taller than the window, and is never squeezed to fit
        content = QWidget()
        content.setObjectName("ChatArea")
        self.page_scroll = scroll_page(content)
        self.page_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        page = QVBoxLayout(self)
        page.setContentsMargins(0, 0, 0, 0)
        page.addWidget(self.page_scroll)
        outer = QVBoxLayout(content)
        outer.addStretch(2)
        column = QVBoxLayout()
        column.setSpacing(12)
        logo = QLabel()
        logo.setPixmap(app_icon().pixmap(88, 88))
        logo.setAlignment(Qt.AlignmentFlag.AlignCenter)
        column.addWidget(logo)
        title = label(_("Bonjour. On s'y met ?"), "EmptyTitle")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        column.addWidget(title)
        intro = label(intro_text(""), "EmptyState", wrap=True)
        intro.setAlignment(Qt.AlignmentFlag.AlignCenter)
        intro.setFixedWidth(INTRO_PX)  # a fixed width lets the wrapped text take its full height
        self.intro = intro
        intro_row = QHBoxLayout()
        intro_row.addStretch(1)
        intro_row.addWidget(intro)
        intro_row.addStretch(1)
        column.addLayout(intro_row)
        row = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        self.suggestions = row
        row.setSpacing(10)
        row.addStretch(1)
        for text in (
            _("Explique-moi ce projet"),
            _("Écris un script Python qui renomme des photos par date"),
            _("Trouve et corrige le bug"),
        ):
            suggestion = button(text)
            suggestion.clicked.connect(
                lambda _checked=False, t=text: self.suggestion_chosen.emit(t)
            )
            row.addWidget(suggestion)
        row.addStretch(1)
        column.addSpacing(8)
        column.addLayout(row)
        # the first-run choice of a model goes here (FirstModelPanel), when there is none
        self.extra = QHBoxLayout()
        self.extra.addStretch(1)
        self.extra.addStretch(1)
        column.addSpacing(12)
        column.addLayout(self.extra)
        outer.addLayout(column)
        outer.addStretch(3)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """On a narrow window the text wraps shorter and the suggestions stack up."""
        super().resizeEvent(event)
        width = self.page_scroll.viewport().width()
        self.intro.setFixedWidth(max(200, min(INTRO_PX, width - 48)))
        wide = width >= self._row_width() + 48
        direction = QBoxLayout.Direction.LeftToRight if wide else QBoxLayout.Direction.TopToBottom
        if self.suggestions.direction() != direction:
            self.suggestions.setDirection(direction)

    def _row_width(self) -> int:
        items = [self.suggestions.itemAt(i) for i in range(self.suggestions.count())]
        shown = [w for item in items if item is not None and (w := item.widget()) is not None]
        return sum(w.sizeHint().width() for w in shown) + self.suggestions.spacing() * len(shown)

    def set_folder(self, folder: str) -> None:
        """The working folder changed (or was restored): the intro says it, or asks for one."""
        self.intro.setText(intro_text(folder))

    def add_panel(self, panel: QWidget) -> None:
        """Centre a panel under the suggestions (the first-run model choice)."""
        self.extra.insertWidget(1, panel, 4)
