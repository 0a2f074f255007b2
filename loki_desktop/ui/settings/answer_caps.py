"""Réglages → Général: an answer's caps, its length in tokens and its streaming time."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFormLayout, QSpinBox

from loki_desktop.core.i18n import _
from loki_desktop.core.settings import ANSWER_SECONDS_RANGE, ANSWER_TOKENS_RANGE, Settings
from loki_desktop.ui.qt_helpers import label


class AnswerCapsRows(QObject):
    """Two rows added to the General form, for every model (a model's own caps are set in
    settings.json, `model_answer_caps`)."""

    def __init__(self, settings: Settings, form: QFormLayout) -> None:
        super().__init__(form)
        self.max_tokens = _spin(ANSWER_TOKENS_RANGE, " " + _("jetons"), settings.answer_max_tokens)
        self.max_tokens.setObjectName("AnswerMaxTokens")
        form.addRow(label(_("Longueur maximale d'une réponse"), "CardTitle"), self.max_tokens)
        self.timeout = _spin(ANSWER_SECONDS_RANGE, " s", settings.answer_timeout_s)
        self.timeout.setObjectName("AnswerTimeout")
        form.addRow(label(_("Durée maximale d'une réponse"), "CardTitle"), self.timeout)
        help_text = _(
            "Envoyée au serveur et tenue par Loki ; 0 : sans limite. Une réponse qui répète "
            "le même passage en boucle est arrêtée de toute façon, ce qui précède gardé."
        )
        form.addRow("", label(help_text, "FieldHelp", wrap=True))

    def apply(self, settings: Settings) -> None:
        settings.answer_max_tokens = self.max_tokens.value()
        settings.answer_timeout_s = self.timeout.value()


def _spin(bounds: tuple[int, int], suffix: str, value: int) -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(*bounds)
    spin.setSingleStep(256 if bounds[1] > 100_000 else 60)
    spin.setSuffix(suffix)
    spin.setSpecialValueText(_("sans limite"))  # shown for 0
    spin.setValue(value)
    return spin
