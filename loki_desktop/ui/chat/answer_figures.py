"""An answer's figures, small and quiet under it, and the composer's thin context bar."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QProgressBar, QWidget

from loki_desktop.core.answer_stats import AnswerStats, describe, number
from loki_desktop.core.i18n import _
from loki_desktop.core.tokens import estimate_tokens
from loki_desktop.ui.qt_helpers import set_state

# Past this share of the context the bar turns orange: the next answers may drop history.
FULL_SHARE = 0.8


class AnswerFigures(QLabel):
    """Tokens, tokens/s, first token, context used against its size (core.answer_stats)."""

    def __init__(self, stats: AnswerStats, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("AnswerFigures")
        self.set_stats(stats)

    def set_stats(self, stats: AnswerStats) -> None:
        self.stats = stats
        self.setText(describe(stats))
        self.setToolTip(
            _("Estimé : le serveur n'a pas donné ses comptes.")
            if stats.estimated
            else _("Comptes donnés par le serveur du modèle.")
        )


class ContextBar(QProgressBar):
    """How full the model's context will be with the message being written: the last
    answer's context plus the draft's estimated tokens. Hidden until a size is known."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ContextBar")
        self.setTextVisible(False)
        self.setRange(0, 1000)
        self.used = 0
        self.limit = 0
        self.typed = 0
        self.hide()

    def set_context(self, used: int, limit: int) -> None:
        """The context the conversation fills (0 and 0: unknown, a new conversation)."""
        self.used, self.limit = used, limit
        self._show()

    def set_draft(self, text: str) -> None:
        self.typed = estimate_tokens(text)
        self._show()

    @property
    def share(self) -> float:
        if self.limit <= 0:
            return 0.0
        return min(1.0, (self.used + self.typed) / self.limit)

    def _show(self) -> None:
        if self.limit <= 0:
            self.hide()
            return
        self.setValue(round(self.share * 1000))
        set_state(self, "full", "true" if self.share > FULL_SHARE else "false")
        self.setToolTip(
            _("Contexte : {used} / {limit} jetons ({share} %)").format(
                used=number(self.used + self.typed),
                limit=number(self.limit),
                share=number(self.share * 100),
            )
        )
        self.show()
