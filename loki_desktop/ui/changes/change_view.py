"""What a write or an edit changed, inside its tool card: the diff, or a new file's code."""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from loki_desktop.core.file_change import FileChange
from loki_desktop.core.i18n import _, ngettext
from loki_desktop.ui.changes.diff_rows import DiffRow, diff_rows
from loki_desktop.ui.changes.diff_view import DiffText
from loki_desktop.ui.qt_helpers import button, label
from loki_desktop.ui.text.code_colours import LineColourer, Piece
from loki_desktop.ui.text.markdown_render import MarkdownRenderer
from loki_desktop.ui.theme import Palette

FOLD_ROWS = 40  # a longer diff (or new file) shows this many lines until "Tout voir"
COLOUR_SLICE_S = 0.012  # background colouring of a new file: this long per loop turn


def counts_label(change: FileChange, palette: Palette) -> QLabel:
    """`+N −M` for a card's header, green and red."""
    shown = QLabel(
        f'<span style="color:{palette.accent}">+{change.added}</span>&nbsp;'
        f'<span style="color:{palette.danger}">\N{MINUS SIGN}{change.removed}</span>'
    )
    shown.setObjectName("DiffCounts")
    shown.setToolTip(
        ngettext("{added}, {n} supprimée", "{added}, {n} supprimées", change.removed).format(
            added=ngettext("{n} ligne ajoutée", "{n} lignes ajoutées", change.added).format(
                n=change.added
            ),
            n=change.removed,
        )
    )
    return shown


class ChangeView(QWidget):
    """A unified diff with line numbers, or a new file as numbered, highlighted code; folded
    after FOLD_ROWS lines until "Tout voir"."""

    def __init__(self, change: FileChange, renderer: MarkdownRenderer) -> None:
        super().__init__()
        self.setObjectName("ChangeView")
        self.change = change
        self.folded = True
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        # made only when there is something to say or to unfold: each card a reopened page
        # builds, and each one streamed, costs its widgets' C heap (a label ~15 KB)
        note = change_note(change)
        self.note: QLabel | None = label(note, "CardDetail", wrap=True) if note else None
        if self.note is not None:
            layout.addWidget(self.note)
        self.rows = diff_rows(change.diff)
        self.code_lines: list[str] = []
        self.colourer: LineColourer | None = None
        if change.kind == "added" and change.content is not None:
            # a new file reads as code: its lines, numbered, in syntax colours (rows made
            # and lines lexed for what is shown)
            self.code_lines = change.content.splitlines()
            self.colourer = LineColourer(change.content, change.path, renderer.palette.pygments)
            self.rows = []
        self.coloured = 0  # rows of the view that have their syntax colours
        self._colour_timer = QTimer(self)
        self._colour_timer.setInterval(0)
        self._colour_timer.timeout.connect(self._colour_more)
        self.diff_text: DiffText | None = None
        if self.rows or self.code_lines:
            self.diff_text = DiffText(renderer.palette, self)
            layout.addWidget(self.diff_text)
        self.more_button: QPushButton | None = None
        if self.total_lines > FOLD_ROWS:
            foot = QHBoxLayout()
            self.more_button = button("", flat=True)
            self.more_button.setObjectName("DiffMore")
            self.more_button.clicked.connect(self.toggle_fold)
            foot.addWidget(self.more_button)
            foot.addStretch(1)
            layout.addLayout(foot)
        self._show()

    @property
    def code(self) -> bool:
        return self.colourer is not None

    @property
    def total_lines(self) -> int:
        return len(self.code_lines) if self.code else len(self.rows)

    @property
    def shown_lines(self) -> int:
        return self.total_lines if not self.folded else min(FOLD_ROWS, self.total_lines)

    def toggle_fold(self) -> None:
        self.folded = not self.folded
        self._show()

    def shown_text(self) -> str:
        """What is on screen, as text (tests, copying)."""
        return self.diff_text.toPlainText() if self.diff_text is not None else ""

    def _show(self) -> None:
        count = self.shown_lines
        if self.code and len(self.rows) < count:
            self.rows += [
                DiffRow("context", line, new=number)
                for number, line in enumerate(
                    self.code_lines[len(self.rows) : count], 1 + len(self.rows)
                )
            ]
        if self.diff_text is not None:
            self.diff_text.set_rows(self.rows[:count], self._colours(count))
        if self.more_button is None:
            return
        hidden = self.total_lines - count
        self.more_button.setText(
            ngettext(
                "Tout voir ({n} ligne de plus)", "Tout voir ({n} lignes de plus)", hidden
            ).format(n=hidden)
            if hidden
            else _("Réduire")
        )

    def _colours(self, count: int) -> list[list[Piece]] | None:
        """A new file's colours: the lines go on screen plain and are coloured as pygments
        lexes them, 12 ms of the event loop at a time (it takes ~0.3-0.6 ms a line of Python
        here: 40 lines lexed at once would be most of a card's render time)."""
        if self.colourer is None or not self.colourer.known:
            return None
        self.coloured = min(count, len(self.colourer.lines))
        if self.coloured < count:
            self._colour_timer.start()
        return self.colourer.lines

    def _colour_more(self) -> None:
        colourer, view = self.colourer, self.diff_text
        if colourer is None or view is None:
            self._colour_timer.stop()
            return
        shown = view.blockCount()
        colourer.advance(shown, deadline=time.perf_counter() + COLOUR_SLICE_S)
        done = min(shown, len(colourer.lines))
        if done > self.coloured:
            view.colour_rows(self.coloured, done - self.coloured)
            self.coloured = done
        if self.coloured >= shown or colourer.done:
            self._colour_timer.stop()

    @property
    def colouring(self) -> bool:
        """Colours are still being added to the lines shown (tests, measurements)."""
        return self._colour_timer.isActive()


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
