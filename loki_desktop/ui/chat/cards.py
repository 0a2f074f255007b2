"""The Intelligence cards of a turn: the summary of earlier exchanges, the plan, the review."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QVBoxLayout, QWidget

from loki_desktop.core.i18n import _
from loki_desktop.core.messages import ChatMessage
from loki_desktop.ui.qt_helpers import label


class FoldCard(QFrame):
    """A card with a title that folds and unfolds its text (folded at first)."""

    def __init__(self, title: str, text: str, object_name: str, *, open_: bool = False) -> None:
        super().__init__()
        self.setObjectName(object_name)
        self.title = title
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(4)
        self.toggle = QPushButton()
        self.toggle.setObjectName("CardToggle")
        self.toggle.setCheckable(True)
        self.toggle.setAccessibleName(title)
        layout.addWidget(self.toggle)
        self.body = QLabel(text)
        self.body.setObjectName("CardBody")
        self.body.setWordWrap(True)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.body)
        self.toggle.toggled.connect(self._set_open)
        self.toggle.setChecked(open_)
        self._set_open(open_)

    @property
    def is_open(self) -> bool:
        return self.toggle.isChecked()

    def _set_open(self, open_: bool) -> None:
        self.body.setVisible(open_)
        self.toggle.setText(("▾ " if open_ else "▸ ") + self.title)


def summary_card(summary: str) -> FoldCard:
    """Older turns were summarised: the summary, folded (the turns stay shown above)."""
    return FoldCard(_("Résumé des échanges précédents"), summary, "SummaryCard")


def plan_card(steps: tuple[str, ...]) -> FoldCard:
    """The plan that guides the turn, open while the turn runs on it."""
    listed = "\n".join(f"{n}. {step}" for n, step in enumerate(steps, 1))
    return FoldCard(_("Plan ({n} étapes)").format(n=len(steps)), listed, "PlanCard", open_=True)


def review_card(summary: str, changed: bool) -> QLabel:
    """One line: what the self-review changed, or that it changed nothing."""
    shown = label(summary, "ReviewCard", wrap=True)
    shown.setProperty("changed", changed)
    return shown


def stored_card(message: ChatMessage) -> QWidget | None:
    """The card of a stored Loki message (role "system"), or None for any other."""
    meta = message.meta
    if message.role != "system":
        return None
    if meta.compacted:
        return summary_card(message.content)
    if meta.plan:
        card = plan_card(meta.plan)
        card.toggle.setChecked(False)  # a past turn's plan: folded
        return card
    if meta.review:
        return review_card(meta.review, meta.review_changed)
    return None
