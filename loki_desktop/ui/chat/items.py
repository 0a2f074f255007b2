"""The pieces of a conversation on screen: messages, tool and check cards, badges, notes."""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontMetrics, QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from loki_desktop.core.answer_stats import AnswerStats
from loki_desktop.core.file_change import FileChange
from loki_desktop.core.i18n import _, ngettext
from loki_desktop.core.image_attachment import ImageAttachment
from loki_desktop.core.message_meta import FileChip as ChipInfo
from loki_desktop.ui.changes.change_view import ChangeView, counts_label
from loki_desktop.ui.chat.answer_figures import AnswerFigures
from loki_desktop.ui.chat.args_view import ArgumentsView
from loki_desktop.ui.chat.file_chips import FileChipRow, chip_row
from loki_desktop.ui.chat.images import ThumbnailRow, thumbnail_row
from loki_desktop.ui.chat.markdown_view import MarkdownView, MessageText
from loki_desktop.ui.qt_helpers import ElidedLabel, button, label, set_state
from loki_desktop.ui.text.markdown_render import MarkdownRenderer
from loki_desktop.ui.theme import info_icon

ARGS_PREVIEW = 70
# A message the person wrote is shown in a light label up to this long (see user_text)
LIGHT_TEXT_CHARS = 2000
LIGHT_WORD_CHARS = 40
# the summary core.tools.native gives a command the person refused (French source text)
REFUSED_SUMMARY = "refusée par l'utilisateur"


class UserMessage(QFrame):
    """What the user typed, shown as plain text in a gold box, with the images and the
    files (as chips) attached."""

    def __init__(
        self,
        text: str,
        images: Sequence[ImageAttachment] = (),
        files: Sequence[ChipInfo] = (),
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("UserMessage")
        self.text = text
        self.images = tuple(images)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.setSpacing(2)
        speaker = label(_("VOUS"), "Speaker")
        layout.addWidget(speaker)
        self.body: QLabel | MessageText = user_text(text)
        layout.addWidget(self.body)
        self.thumbnails: ThumbnailRow | None = None
        if self.images:
            self.thumbnails = thumbnail_row(self.images)
            layout.addWidget(self.thumbnails)
        self.files = tuple(files)
        self.chips: FileChipRow | None = None
        if self.files:
            self.chips = chip_row(self.files)
            layout.addWidget(self.chips)


def user_text(text: str) -> QLabel | MessageText:
    """What the person wrote: a selectable label (~35 KB of C heap where a text browser held
    ~110 KB); a text browser for a long text or one with a word too long to wrap at a space
    (a path, a URL: a label cannot break it and would be cut off)."""
    words = text.split()
    if len(text) > LIGHT_TEXT_CHARS or any(len(word) > LIGHT_WORD_CHARS for word in words):
        body = MessageText()
        body.setPlainText(text)
        return body
    light = QLabel(text)
    light.setObjectName("UserText")
    light.setTextFormat(Qt.TextFormat.PlainText)
    light.setWordWrap(True)
    light.setMargin(2)  # the text browser's document margin
    light.setTextInteractionFlags(
        Qt.TextInteractionFlag.TextSelectableByMouse
        | Qt.TextInteractionFlag.TextSelectableByKeyboard
    )
    # reached with Tab like the text browser it replaces
    light.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    light.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
    return light


class AssistantMessage(QFrame):
    """An answer from the model: Markdown that streams, with a copy button."""

    def __init__(self, renderer: MarkdownRenderer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("AssistantMessage")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 4, 2, 4)
        layout.setSpacing(2)
        self.head = QWidget()
        head = QHBoxLayout(self.head)
        head.setContentsMargins(0, 0, 0, 0)
        speaker = label("LOKI", "Speaker")
        speaker.setProperty("who", "loki")
        head.addWidget(speaker)
        head.addStretch(1)
        self.copy_button = button(_("Copier"), flat=True)
        self.copy_button.setToolTip(_("Copier la réponse (Markdown)"))
        self.copy_button.clicked.connect(self._copy)
        head.addWidget(self.copy_button)
        layout.addWidget(self.head)
        # the answers of one turn's rounds: the first shows the one header, copies them all
        self.parts: list[AssistantMessage] = [self]
        self.body = MarkdownView(renderer, self)
        layout.addWidget(self.body)
        self._layout = layout
        self.cut_note: QLabel | None = None  # made for a cut answer only (a label is ~15 KB)
        self.figures: AnswerFigures | None = None  # the turn's figures, under its last answer
        self.streaming = False

    def append_text(self, text: str) -> None:
        self.streaming = True
        self.body.append(text)

    def set_markdown(self, text: str, *, defer: bool = False) -> None:
        self.body.set_markdown(text, defer=defer)

    def finish(self, *, cut: bool = False) -> None:
        self.body.finish()
        self.streaming = False
        if cut and self.cut_note is None:
            self.cut_note = label(_("Réponse interrompue."), "Notice")
            self._layout.addWidget(self.cut_note)
        if self.cut_note is not None:
            self.cut_note.setVisible(cut)

    def markdown(self) -> str:
        return self.body.markdown()

    def show_figures(self, stats: AnswerStats) -> AnswerFigures:
        """The turn's figures, small under this answer (made only then: a label is ~15 KB)."""
        if self.figures is None:
            self.figures = AnswerFigures(stats)
            self._layout.addWidget(self.figures)
        else:
            self.figures.set_stats(stats)
        return self.figures

    def add_part(self, later: AssistantMessage) -> None:
        """`later` answers in the same turn, after a tool round: no second "LOKI" header."""
        later.head.hide()
        self.parts.append(later)

    def _copy(self) -> None:
        texts = [part.markdown() for part in self.parts if part.markdown().strip()]
        QGuiApplication.clipboard().setText("\n\n".join(texts))


class Chip(QLabel):
    """A small status label: EN COURS, OK, ÉCHEC…"""

    def __init__(self, text: str, state: str) -> None:
        super().__init__(text)
        self.setObjectName("StatusChip")
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.set(text, state)

    def set(self, text: str, state: str) -> None:
        self.setText(text)
        set_state(self, "state", state)


class FoldedText(QPlainTextEdit):
    """Read-only monospace text, folded until asked for, as tall as its content (capped)."""

    MAX_HEIGHT = 260

    def __init__(self, text: str, object_name: str) -> None:
        super().__init__()
        self.setObjectName(object_name)
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.hide()
        self.set_text(text)

    def set_text(self, text: str) -> None:
        self.setPlainText(text)
        lines = max(1, min(text.count("\n") + 1, 14))
        height = QFontMetrics(self.font()).lineSpacing() * lines + 20
        self.setFixedHeight(min(height, self.MAX_HEIGHT))


class ToolCard(QFrame):
    """A tool call keyed by its call id: name, folded arguments, status, summary, result."""

    def __init__(self, call_id: str, name: str, args: dict[str, Any], cut_note: str = "") -> None:
        super().__init__()
        self.call_id = call_id
        self.name = name
        self.args = args
        self.state = "running"
        self.output = ""
        self.setProperty("card", True)
        layout = QVBoxLayout(self)
        self._layout = layout
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(6)
        head = QHBoxLayout()
        head.setSpacing(8)
        self.chip = Chip(_("EN COURS"), "running")
        head.addWidget(self.chip)
        self.title = label(name, "ToolName")
        head.addWidget(self.title)
        self.detail = label(_args_preview(args), "CardDetail")
        # elided to whatever room is left: a narrow column keeps the chip and the buttons whole
        self.detail.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        head.addWidget(self.detail, 1)
        self.args_button = button(_("Arguments"), flat=True)
        self.args_button.setCheckable(True)
        head.addWidget(self.args_button)
        self.result_button = button(_("Résultat"), flat=True)
        # Loki's own tools answer the model in English: say whose text it is
        self.result_button.setToolTip(_("Le résultat tel que le modèle l'a reçu"))
        self.result_button.setCheckable(True)
        self.result_button.setEnabled(False)
        head.addWidget(self.result_button)
        layout.addLayout(head)
        self._head = head
        self.cut_note = cut_note
        # built when first unfolded: a reopened write_file carries the whole file
        self.args_view: ArgumentsView | None = None
        # built when first unfolded too: a text view costs 50-130 KB of C heap even hidden,
        # and a reopened conversation builds every card of its page
        self.output_view: FoldedText | None = None
        self.args_button.toggled.connect(self._show_args)
        self.result_button.toggled.connect(self._show_output)
        self.thumbnails: ThumbnailRow | None = None
        self.change_view: ChangeView | None = None
        self.counts: QLabel | None = None

    def _show_args(self, shown: bool) -> None:
        if self.args_view is None:
            self.args_view = ArgumentsView(self.args, self.cut_note)
            self._layout.insertWidget(1, self.args_view)
        self.args_view.setVisible(shown)

    def _show_output(self, shown: bool) -> None:
        if self.output_view is None:
            self.output_view = FoldedText(self.output, "ToolOutput")
            # under the head and the arguments, above a diff or the files a command changed
            self._layout.insertWidget(1 if self.args_view is None else 2, self.output_view)
        self.output_view.setVisible(shown)

    def set_change(self, change: FileChange, renderer: MarkdownRenderer) -> None:
        """Show what a write or an edit changed: `+N −M` in the header, the diff below."""
        if self.change_view is not None:
            return
        self.counts = counts_label(change, renderer.palette)
        self._head.insertWidget(self._head.indexOf(self.args_button), self.counts)
        self.change_view = ChangeView(change, renderer)
        self._layout.addWidget(self.change_view)

    def set_waiting(self) -> None:
        """Waiting for the person to allow it (the approval dialog is open)."""
        self.state = "waiting"
        self.chip.set(_("EN ATTENTE"), "waiting")  # the status line says whose accord

    def set_answered(self, allowed: bool) -> None:
        self.state = "running" if allowed else "refused"
        if allowed:
            self.chip.set(_("EN COURS"), "running")

    def set_result(
        self, ok: bool, summary: str, output: str, images: Sequence[ImageAttachment] = ()
    ) -> None:
        refused = not ok and (self.state == "refused" or summary in refusal_summaries())
        self.state = "refused" if refused else "ok" if ok else "error"
        self.output = output
        if refused:
            # the person said no: nothing failed, so no red
            self.chip.set(_("REFUSÉ"), "refused")
        else:
            self.chip.set(_("OK") if ok else _("ÉCHEC"), self.state)
        set_state(self, "state", self.state)
        if summary:
            self.detail.setText(summary)
            self.detail.setToolTip(summary)
        if self.output_view is not None:
            self.output_view.set_text(output)
        self.result_button.setEnabled(bool(output))
        if images and self.thumbnails is None:
            # what the tool showed (a screenshot), visible without unfolding the result
            self.thumbnails = thumbnail_row(images)
            self._layout.addWidget(self.thumbnails)

    def set_interrupted(self) -> None:
        self.state = "cut"
        self.chip.set(_("INTERROMPU"), "skipped")

    def add_detail(self, widget: QWidget) -> None:
        """A block under the card (the files a command changed)."""
        self._layout.addWidget(widget)


class CheckCard(QFrame):
    """A static check of a file the agent wrote: OK, or the problems it found."""

    def __init__(
        self,
        path: str,
        ok: bool,
        problems: Sequence[tuple[int, int, str]],
        skipped: str | None = None,
    ) -> None:
        super().__init__()
        self.path = path
        self.ok = ok
        self.problems = list(problems)
        self.setProperty("card", True)
        set_state(self, "state", "ok" if ok else "error")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(4)
        head = QHBoxLayout()
        head.setSpacing(8)
        if ok and skipped:
            chip = Chip(_("NON VÉRIFIÉ"), "skipped")
        elif ok:
            chip = Chip(_("VÉRIFIÉ"), "ok")
        else:
            count = len(self.problems)
            text = ngettext("{n} PROBLÈME", "{n} PROBLÈMES", count).format(n=count)
            chip = Chip(text, "error")
        head.addWidget(chip)
        # a deep path is elided ("…"), whole in its tooltip: no minimum width for the card
        title = ElidedLabel(_("Vérification de {path}").format(path=path), "CardTitle")
        head.addWidget(title, 1)
        layout.addLayout(head)
        for line, col, message in self.problems:
            row = label(
                _("ligne {line}, col. {col} — {message}").format(
                    line=line, col=col, message=message
                ),
                "ProblemLine",
                wrap=True,
            )
            row.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            layout.addWidget(row)
        if skipped:
            layout.addWidget(label(skipped, "CardDetail", wrap=True))


class SkillBadge(QWidget):
    """The expert method chosen for this message: "Méthode : <titre>", and the model of a
    code turn when it is not the chat model ("· modèle : <nom>")."""

    def __init__(self, title: str, model: str = "") -> None:
        super().__init__()
        self.title = title
        self.model = model
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        text = _("Méthode : {title}").format(title=title)
        if model:
            text += " · " + _("modèle : {model}").format(model=model)
        self.badge = label(text, "SkillBadge")
        row.addWidget(self.badge)
        row.addStretch(1)


class NoticeLine(QWidget):
    """Something worth knowing, said quietly, after an "i" icon (an SVG: no font lacks it)."""

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        self.icon = QLabel()
        self.icon.setObjectName("NoticeIcon")
        self.icon.setPixmap(info_icon().pixmap(16, 16))
        row.addWidget(self.icon, 0, Qt.AlignmentFlag.AlignTop)
        self.text = label(message, "Notice", wrap=True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row.addWidget(self.text, 1)


class HarnessNote(QLabel):
    """A message Loki sent to the model on the user's behalf (the check follow-up, or the
    note of an undo: `shown` then says what it is)."""

    def __init__(self, content: str, shown: str | None = None) -> None:
        super().__init__(
            shown or _("Loki a renvoyé au modèle les problèmes trouvés par la vérification.")
        )
        self.setObjectName("HarnessNote")
        self.setWordWrap(True)
        self.setToolTip(html.escape(content))


class ErrorCard(QFrame):
    """Something stopped the turn; the user can try again."""

    retry_requested = Signal()

    def __init__(self, message: str, *, can_retry: bool = True) -> None:
        super().__init__()
        self.message = message
        self.setProperty("card", True)
        set_state(self, "state", "error")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(10)
        self.chip = Chip(_("ERREUR"), "error")
        layout.addWidget(self.chip, 0, Qt.AlignmentFlag.AlignTop)
        self.text = label(message, "CardTitle", wrap=True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.text, 1)
        self.offline = False
        self.retry_button: QPushButton | None = None
        if can_retry:
            self.retry_button = button(_("Réessayer"), primary=True)
            self.retry_button.clicked.connect(self._retry)
            layout.addWidget(self.retry_button, 0, Qt.AlignmentFlag.AlignTop)

    def disable_retry(self) -> None:
        if self.retry_button is not None:
            self.retry_button.setEnabled(False)

    def leave_behind(self) -> None:
        """A newer message was sent: this one can no longer be retried. An offline card then
        says what became of its message, without a dead button."""
        self.disable_retry()
        if self.offline and self.retry_button is not None:
            self.retry_button.hide()
            self.chip.set(_("SANS RÉPONSE"), "skipped")
            self.text.setText(_("Ce message est resté sans réponse : Ollama ne répondait pas."))

    def enable_retry(self) -> None:
        if self.retry_button is not None:
            self.retry_button.setEnabled(True)

    def set_offline(self) -> None:
        """The server is not there: the banner above says so and how to fix it, so this card
        only keeps the message and its Réessayer (the error is not told twice)."""
        self.offline = True
        self.chip.set(_("NON ENVOYÉ"), "waiting")
        self.text.setText(
            _("Ollama ne répond pas (voir le bandeau en haut). Réessayez quand il tourne.")
        )
        self.text.setToolTip(self.message)
        set_state(self, "state", "waiting")

    def set_back_online(self) -> None:
        """The server answers again: the card no longer says it does not (its message is
        still not sent: Réessayer sends it)."""
        if self.offline and self.retry_button is not None and self.retry_button.isEnabled():
            self.text.setText(_("Ollama répond de nouveau : réessayez pour envoyer ce message."))

    def _retry(self) -> None:
        self.disable_retry()
        self.retry_requested.emit()


def refusal_summaries() -> set[str]:
    """How a refused run_shell's result is summed up in the history (as stored then)."""
    return {REFUSED_SUMMARY, _(REFUSED_SUMMARY)}


def _args_preview(args: dict[str, Any]) -> str:
    parts = []
    for key, value in args.items():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        shown = " ".join(str(shown).split())
        parts.append(f"{key}={shown}")
    text = "  ".join(parts)
    return text if len(text) <= ARGS_PREVIEW else text[: ARGS_PREVIEW - 1] + "…"
