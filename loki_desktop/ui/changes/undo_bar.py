"""Under each turn that changed files: the files, and "Annuler les modifications de ce tour".

The bar lists the files (added, modified, deleted, +N −M), puts them back as they were
before the turn, asks per file when one changed since (a later turn, or the person), and
then offers to redo. The work is core.changes'; files are written in a worker thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QMessageBox, QVBoxLayout, QWidget

from loki_desktop.core.i18n import _, ngettext
from loki_desktop.core.ports import CheckpointStore, ConversationStore, TurnCheckpoint
from loki_desktop.ui.qt_helpers import OwnedTasks, button, label

if TYPE_CHECKING:
    from loki_desktop.core.changes.counts import FileSummary
    from loki_desktop.core.changes.undo import FileStep, UndoPlan, UndoReport


def file_line(summary: FileSummary) -> str:
    from loki_desktop.core.changes.labels import kind_label

    counts = ""
    if summary.added is not None and summary.removed is not None:
        counts = f"  +{summary.added} −{summary.removed}"
    return f"{kind_label(summary.kind)}  {summary.path}{counts}"


class UndoBar(QFrame):
    """One turn's bar. `direction` is what its button does next: "undo" or "redo"."""

    clicked = Signal()

    def __init__(
        self, turn: TurnCheckpoint, summaries: list[FileSummary], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("UndoBar")
        self.setProperty("card", True)
        self.turn = turn
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(4)
        title = ngettext(
            "Ce tour a modifié {n} fichier", "Ce tour a modifié {n} fichiers", len(summaries)
        ).format(n=len(summaries))
        layout.addWidget(label(title, "CardDetail"))
        self.files = label("\n".join(file_line(s) for s in summaries), "CardMono")
        layout.addWidget(self.files)
        self.status = label("", "CardDetail", wrap=True)
        self.status.hide()
        layout.addWidget(self.status)
        row = QHBoxLayout()
        self.button = button("", flat=True)
        self.button.clicked.connect(self.clicked)
        row.addWidget(self.button)
        row.addStretch(1)
        layout.addLayout(row)
        undone = bool(turn.files) and all(f.restored for f in turn.files)
        self.set_direction("redo" if undone else "undo")

    def set_direction(self, direction: str) -> None:
        self.direction = direction
        if direction == "undo":
            self.button.setText(_("Annuler les modifications de ce tour"))
        else:
            self.button.setText(_("Rétablir les modifications de ce tour"))

    def say(self, text: str) -> None:
        self.status.setText(text)
        self.status.setVisible(bool(text))


class TurnAnchors(Protocol):
    """Where the bars go: the conversation's view (chat.view.ChatView is one)."""

    def tool_card(self, call_id: str) -> QWidget | None: ...

    def place_after_turn(self, call_id: str, widget: QWidget) -> bool: ...

    def add_card(self, card: QWidget) -> QWidget: ...


class UndoBars(QObject):
    """The bars of one conversation's view: placed after each turn that changed files."""

    def __init__(
        self,
        view: TurnAnchors,
        checkpoints: Callable[[], CheckpointStore | None],
        store: Callable[[], ConversationStore],
        conversation_id: str,
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self.view = view
        self.parent_widget = parent  # the questions asked open over it
        self._checkpoints = checkpoints
        self._store = store
        self.conversation_id = conversation_id
        self.bars: dict[int, UndoBar] = {}
        self.tasks = OwnedTasks()
        self.dialog: QMessageBox | None = None  # the question being asked (tests answer it)

    def refresh(self) -> None:
        """Place a bar after each turn with changes that has none yet (and is on screen)."""
        from loki_desktop.core.changes.counts import summarize

        points = self._checkpoints()
        if points is None:
            return
        for turn in points.turns(self.conversation_id):
            if turn.turn in self.bars or not turn.files:
                continue
            anchors = [f.call_id for f in turn.files if f.call_id]
            if not anchors or self.view.tool_card(anchors[-1]) is None:
                # its turn is not built (an older page, or not scrolled to yet): this runs
                # again each time the view builds older turns
                continue
            bar = UndoBar(turn, summarize(points, turn))
            if not self.view.place_after_turn(anchors[-1], bar):
                bar.deleteLater()
                continue
            self.bars[turn.turn] = bar
            bar.clicked.connect(lambda bar=bar: self.tasks.spawn(self.run(bar)))

    def offer(self, turns: Sequence[TurnCheckpoint]) -> None:
        """The undo of turns of a branch no longer shown (their cards are not on screen),
        added at the end of the view: nothing a left branch changed is undone silently."""
        from loki_desktop.core.changes.counts import summarize

        points = self._checkpoints()
        if points is None:
            return
        for turn in turns:
            if turn.turn in self.bars:
                continue
            bar = UndoBar(turn, summarize(points, turn))
            self.view.add_card(bar)
            self.bars[turn.turn] = bar
            bar.clicked.connect(lambda bar=bar: self.tasks.spawn(self.run(bar)))

    async def run(self, bar: UndoBar) -> None:
        from loki_desktop.core.changes.undo import UndoRefused, pick_turn, plan

        points = self._checkpoints()
        if points is None:
            return
        focused = bar.button.hasFocus()  # disabling it hands the focus on (to the sidebar)
        bar.button.setEnabled(False)
        try:
            # read again: a later undo, the CLI or an eviction may have changed it
            turn = pick_turn(points, self.conversation_id, bar.turn.turn, "undo")
            undo = await asyncio.to_thread(
                plan, turn, "undo" if bar.direction == "undo" else "redo"
            )
            overwrite = await self._ask(undo)
            report = await self._apply(points, undo, overwrite)
        except UndoRefused as exc:
            bar.say(str(exc))
            return
        finally:
            bar.button.setEnabled(True)
            if focused:
                bar.button.setFocus(Qt.FocusReason.OtherFocusReason)  # back where it was
        if report is None:
            bar.say(
                _("Un tour est en cours dans cette conversation : réessayez quand il sera fini.")
            )
            return
        bar.say(outcome_text(undo, report))
        if report.restored and not report.left and not report.failed:
            bar.set_direction("redo" if undo.direction == "undo" else "undo")

    async def _ask(self, undo: UndoPlan) -> set[str]:
        """The files changed since the turn that the person lets us overwrite."""
        allowed = set()
        for step in undo.conflicts:
            if await self._ask_one(step, undo.direction):
                allowed.add(step.path)
        return allowed

    async def _ask_one(self, step: FileStep, direction: str) -> bool:
        box = QMessageBox(self.parent_widget)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle(_("Fichier modifié depuis ce tour"))
        if direction == "undo":
            text = _(
                "« {path} » a changé depuis ce tour. Le remettre quand même dans son état "
                "d'avant le tour ? Les changements faits depuis seront perdus."
            )
        else:
            text = _(
                "« {path} » a changé depuis l'annulation. Le remettre quand même tel que "
                "le tour l'avait écrit ? Les changements faits depuis seront perdus."
            )
        box.setText(text.format(path=step.path))
        overwrite = box.addButton(_("Écraser"), QMessageBox.ButtonRole.DestructiveRole)
        keep = box.addButton(_("Laisser tel quel"), QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(keep)
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def finished(_result: int) -> None:
            if not answer.done():
                answer.set_result(box.clickedButton() is overwrite)

        box.finished.connect(finished)
        self.dialog = box
        box.open()
        try:
            return await answer
        finally:
            self.dialog = None
            box.deleteLater()

    async def _apply(
        self, points: CheckpointStore, undo: UndoPlan, overwrite: set[str]
    ) -> UndoReport | None:
        """Under the conversation's turn lock (None: a turn runs there); the note for the
        model is written here, on the store's thread."""
        from loki_desktop.core.changes.note import remember
        from loki_desktop.core.changes.undo import apply

        store = self._store()
        lock = store.lock_turn(self.conversation_id)
        if lock is None:
            return None
        try:
            report = await asyncio.to_thread(
                apply, points, undo, lambda step: step.path in overwrite
            )
            remember(store, undo, report)
        finally:
            lock.release()
        return report


def outcome_text(undo: UndoPlan, report: UndoReport) -> str:
    parts = []
    back = [s.path for s in report.restored if s.target is not None]
    gone = [s.path for s in report.restored if s.target is None]
    if back:
        parts.append(_("Restaurés : {files}").format(files=", ".join(back)))
    if gone:
        parts.append(_("Supprimés : {files}").format(files=", ".join(gone)))
    if report.left:
        parts.append(
            _("Laissés tels quels (modifiés depuis) : {files}").format(
                files=", ".join(s.path for s in report.left)
            )
        )
    if report.failed:
        parts.append(
            _("Échecs : {files}").format(
                files=", ".join(f"{s.path} ({why})" for s, why in report.failed)
            )
        )
    head = (
        _("Modifications annulées.") if undo.direction == "undo" else _("Modifications rétablies.")
    )
    return "\n".join([head, *parts])
