"""Memories in the conversation: the quiet « Souvenirs : N » badge and the « Mémorisé » card."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from loki_desktop.core.events import RecalledItem
from loki_desktop.core.i18n import _
from loki_desktop.ui.qt_helpers import button, label


class RecallBadge(QWidget):
    """What was recalled for this turn: a flat « Souvenirs : N » that opens the list."""

    def __init__(self, items: Sequence[RecalledItem]) -> None:
        super().__init__()
        self.items = tuple(items)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        row = QHBoxLayout()
        passages = any(item.path for item in self.items)
        title = _("Passages du dossier : {n}") if passages else _("Souvenirs : {n}")
        self.toggle = button(title.format(n=len(self.items)), flat=True)
        self.toggle.setObjectName("RecallBadge")
        self.toggle.setCheckable(True)
        self.toggle.setToolTip(_("Ce que Loki s'est rappelé pour ce message"))
        row.addWidget(self.toggle)
        row.addStretch(1)
        layout.addLayout(row)
        self.list = label("\n".join(_line(item) for item in self.items), "Notice", wrap=True)
        self.list.setVisible(False)
        layout.addWidget(self.list)
        self.toggle.toggled.connect(self.list.setVisible)


def _line(item: RecalledItem) -> str:
    if not item.path:
        return f"• {item.text}"
    first = item.text.strip().splitlines()[0] if item.text.strip() else ""
    return f"• {item.path}:{item.line} — {first[:160]}"


class MemorisedCard(QFrame):
    """A memory kept during the turn, with *Oublier* (never silent, undone in one click)."""

    def __init__(self, memory_id: int, text: str, forget: Callable[[int], None] | None) -> None:
        super().__init__()
        self.setObjectName("MemorisedCard")
        self.memory_id = memory_id
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 6, 10, 6)
        self.text: QLabel = label(_("Mémorisé : {text}").format(text=text), "Notice", wrap=True)
        row.addWidget(self.text, 1)
        self.forget_button = button(_("Oublier"), flat=True)
        self.forget_button.setEnabled(forget is not None)
        row.addWidget(self.forget_button)
        self._forget = forget
        self.forget_button.clicked.connect(self._on_forget)

    def _on_forget(self) -> None:
        if self._forget is None:
            return
        self._forget(self.memory_id)
        self.forget_button.setEnabled(False)
        self.text.setText(_("Oublié."))
