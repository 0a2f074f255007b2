"""What a write or an edit changed, inside its tool card: the diff, or a new file's code."""

from __future__ import annotations

import re

from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from loki_desktop.core.changes import FileChange
from loki_desktop.core.i18n import _
from loki_desktop.ui.diff_rows import diff_rows
from loki_desktop.ui.diff_view import DiffText
from loki_desktop.ui.markdown_render import MarkdownRenderer
from loki_desktop.ui.markdown_view import MarkdownView
from loki_desktop.ui.qt_helpers import button, label
from loki_desktop.ui.theme import Palette

FOLD_ROWS = 40  # a longer diff (or new file) shows this many lines until "Tout voir"


def counts_label(change: FileChange, palette: Palette) -> QLabel:
    """`+N −M` for a card's header, green and red."""
    shown = QLabel(
        f'<span style="color:{palette.accent}">+{change.added}</span>&nbsp;'
        f'<span style="color:{palette.danger}">\N{MINUS SIGN}{change.removed}</span>'
    )
    shown.setObjectName("DiffCounts")
    shown.setToolTip(
        _("{added} lignes ajoutées, {removed} supprimées").format(
            added=change.added, removed=change.removed
        )
    )
    return shown


class ChangeView(QWidget):
    """A unified diff with line numbers, or a new file as highlighted code; folded when long."""

    def __init__(self, change: FileChange, renderer: MarkdownRenderer) -> None:
        super().__init__()
        self.setObjectName("ChangeView")
        self.change = change
        self.folded = True
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.note = label(change_note(change), "CardDetail", wrap=True)
        self.note.setVisible(bool(self.note.text()))
        layout.addWidget(self.note)
        self.rows = diff_rows(change.diff)
        self.code_lines: list[str] = []
        self.diff_text: DiffText | None = None
        self.code_view: MarkdownView | None = None
        if change.kind == "added" and change.content is not None:
            self.code_lines = change.content.splitlines()
            self.code_view = MarkdownView(renderer, self)
            layout.addWidget(self.code_view)
        elif self.rows:
            self.diff_text = DiffText(renderer.palette, self)
            layout.addWidget(self.diff_text)
        foot = QHBoxLayout()
        self.more_button = button("", flat=True)
        self.more_button.setObjectName("DiffMore")
        self.more_button.clicked.connect(self.toggle_fold)
        foot.addWidget(self.more_button)
        foot.addStretch(1)
        layout.addLayout(foot)
        self._show()

    @property
    def total_lines(self) -> int:
        return len(self.code_lines) if self.code_view is not None else len(self.rows)

    @property
    def shown_lines(self) -> int:
        return self.total_lines if not self.folded else min(FOLD_ROWS, self.total_lines)

    def toggle_fold(self) -> None:
        self.folded = not self.folded
        self._show()

    def shown_text(self) -> str:
        """What is on screen, as text (tests, copying)."""
        if self.diff_text is not None:
            return self.diff_text.toPlainText()
        if self.code_view is not None:
            return self.code_view.plain_text()
        return ""

    def _show(self) -> None:
        count = self.shown_lines
        if self.diff_text is not None:
            self.diff_text.set_rows(self.rows[:count])
        elif self.code_view is not None:
            self.code_view.set_markdown(_fenced(self.code_lines[:count], self.change.path))
        hidden = self.total_lines - count
        self.more_button.setVisible(self.total_lines > FOLD_ROWS)
        self.more_button.setText(
            _("Tout voir ({n} lignes de plus)").format(n=hidden) if hidden else _("Réduire")
        )


def change_note(change: FileChange) -> str:
    """What the card says besides the diff (nothing to compare, cut, coarse, unchanged)."""
    if change.omitted == "binary":
        return _("Fichier binaire : pas de diff ligne à ligne.")
    if change.omitted == "too_large":
        return _("Fichier trop grand pour un diff ligne à ligne.")
    notes = []
    if change.kind == "modified" and not change.diff:
        notes.append(_("Aucun changement : le fichier avait déjà ce contenu."))
    if change.kind == "added" and not change.content:
        notes.append(_("Fichier vide."))
    if change.coarse:
        notes.append(
            _(
                "Les deux versions diffèrent trop pour un diff fin : l'ancienne partie et la "
                "nouvelle sont montrées en bloc."
            )
        )
    if change.truncated:
        notes.append(_("Trop long pour être gardé en entier : seul le début est montré."))
    return " ".join(notes)


def _fenced(lines: list[str], path: str) -> str:
    """A Markdown code block, its language from the file name (the Markdown view's
    highlighting then colours it), with a fence longer than any backtick run inside."""
    code = "\n".join(lines)
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{_language(path)}\n{code}\n{fence}\n"


def _language(path: str) -> str:
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_for_filename(path)
    except ClassNotFound:
        return ""
    return str(lexer.aliases[0]) if lexer.aliases else ""
