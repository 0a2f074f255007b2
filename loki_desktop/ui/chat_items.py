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

from loki_desktop.core.file_change import FileChange
from loki_desktop.core.i18n import _, ngettext
from loki_desktop.core.messages import ImageAttachment
from loki_desktop.ui.args_view import ArgumentsView
from loki_desktop.ui.change_view import ChangeView, counts_label
from loki_desktop.ui.images import ThumbnailRow, thumbnail_row
from loki_desktop.ui.markdown_render import MarkdownRenderer
from loki_desktop.ui.markdown_view import MarkdownView, MessageText
from loki_desktop.ui.qt_helpers import button, label, set_state

ARGS_PREVIEW = 70


class UserMessage(QFrame):
    """What the user typed, shown as plain text in a gold box, with the images attached."""

    def __init__(
        self,
        text: str,
        images: Sequence[ImageAttachment] = (),
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
        body = MessageText()
        body.setPlainText(text)
        layout.addWidget(body)
        self.thumbnails: ThumbnailRow | None = None
        if self.images:
            self.thumbnails = thumbnail_row(self.images)
            layout.addWidget(self.thumbnails)


class AssistantMessage(QFrame):
    """An answer from the model: Markdown that streams, with a copy button."""

    def __init__(self, renderer: MarkdownRenderer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("AssistantMessage")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 4, 2, 4)
        layout.setSpacing(2)
        head = QHBoxLayout()
        speaker = label("LOKI", "Speaker")
        speaker.setProperty("who", "loki")
        head.addWidget(speaker)
        head.addStretch(1)
        self.copy_button = button(_("Copier"), flat=True)
        self.copy_button.setToolTip(_("Copier la réponse (Markdown)"))
        self.copy_button.clicked.connect(self._copy)
        head.addWidget(self.copy_button)
        layout.addLayout(head)
        self.body = MarkdownView(renderer, self)
        layout.addWidget(self.body)
        self.cut_note = label(_("Réponse interrompue."), "Notice")
        self.cut_note.hide()
        layout.addWidget(self.cut_note)
        self.streaming = False

    def append_text(self, text: str) -> None:
        self.streaming = True
        self.body.append(text)

    def set_markdown(self, text: str) -> None:
        self.body.set_markdown(text)

    def finish(self, *, cut: bool = False) -> None:
        self.body.finish()
        self.streaming = False
        self.cut_note.setVisible(cut)

    def markdown(self) -> str:
        return self.body.markdown()

    def _copy(self) -> None:
        QGuiApplication.clipboard().setText(self.body.markdown())


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
        self.detail.setMinimumWidth(40)
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
        self.output_view = FoldedText("", "ToolOutput")
        layout.addWidget(self.output_view)
        self.args_button.toggled.connect(self._show_args)
        self.result_button.toggled.connect(self.output_view.setVisible)
        self.thumbnails: ThumbnailRow | None = None
        self.change_view: ChangeView | None = None
        self.counts: QLabel | None = None

    def _show_args(self, shown: bool) -> None:
        if self.args_view is None:
            self.args_view = ArgumentsView(self.args, self.cut_note)
            self._layout.insertWidget(1, self.args_view)
        self.args_view.setVisible(shown)

    def set_change(self, change: FileChange, renderer: MarkdownRenderer) -> None:
        """Show what a write or an edit changed: `+N −M` in the header, the diff below."""
        if self.change_view is not None:
            return
        self.counts = counts_label(change, renderer.palette)
        self._head.insertWidget(self._head.indexOf(self.args_button), self.counts)
        self.change_view = ChangeView(change, renderer)
        self._layout.addWidget(self.change_view)

    def set_result(
        self, ok: bool, summary: str, output: str, images: Sequence[ImageAttachment] = ()
    ) -> None:
        self.state = "ok" if ok else "error"
        self.output = output
        self.chip.set(_("OK") if ok else _("ÉCHEC"), self.state)
        set_state(self, "state", self.state)
        if summary:
            self.detail.setText(summary)
            self.detail.setToolTip(summary)
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
        title = label(_("Vérification de {path}").format(path=path), "CardTitle")
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
    """The expert method chosen for this message: "Méthode : <titre>"."""

    def __init__(self, title: str) -> None:
        super().__init__()
        self.title = title
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.badge = label(_("Méthode : {title}").format(title=title), "SkillBadge")
        row.addWidget(self.badge)
        row.addStretch(1)


class NoticeLine(QLabel):
    """Something worth knowing, said quietly."""

    def __init__(self, message: str) -> None:
        super().__init__("ⓘ  " + message)
        self.message = message
        self.setObjectName("Notice")
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)


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
        chip = Chip(_("ERREUR"), "error")
        layout.addWidget(chip, 0, Qt.AlignmentFlag.AlignTop)
        text = label(message, "CardTitle", wrap=True)
        text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(text, 1)
        self.retry_button: QPushButton | None = None
        if can_retry:
            self.retry_button = button(_("Réessayer"), primary=True)
            self.retry_button.clicked.connect(self._retry)
            layout.addWidget(self.retry_button, 0, Qt.AlignmentFlag.AlignTop)

    def disable_retry(self) -> None:
        if self.retry_button is not None:
            self.retry_button.setEnabled(False)

    def _retry(self) -> None:
        self.disable_retry()
        self.retry_requested.emit()


def _args_preview(args: dict[str, Any]) -> str:
    parts = []
    for key, value in args.items():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        shown = " ".join(str(shown).split())
        parts.append(f"{key}={shown}")
    text = "  ".join(parts)
    return text if len(text) <= ARGS_PREVIEW else text[: ARGS_PREVIEW - 1] + "…"
