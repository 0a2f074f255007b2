"""Réglages → Intelligence: the plan step, the self-review and the code model (all off at first)."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QFrame, QVBoxLayout

from loki_desktop.core.i18n import _
from loki_desktop.core.settings import Settings
from loki_desktop.ui.qt_helpers import label


class TurnSteps(QFrame):
    """The switches of a turn's extra steps, and the model of code turns."""

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.setObjectName("TurnSteps")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        # short: a check box cannot wrap (its text would set the page's width); the help says more
        self.plan = QCheckBox(_("Faire un plan d'abord"))
        self.plan.setObjectName("PlanEnabled")
        self.plan.setChecked(settings.plan_enabled)
        layout.addWidget(self.plan)
        self.review = QCheckBox(_("Relire chaque réponse"))
        self.review.setObjectName("ReviewEnabled")
        self.review.setChecked(settings.review_enabled)
        layout.addWidget(self.review)
        layout.addWidget(
            label(
                _(
                    "Plan : pour une demande en plusieurs actions, un plan court guide le tour. "
                    "Relecture : la réponse est vérifiée, et corrigée une fois si besoin. "
                    "Chacun coûte un appel court au modèle ; « Évaluer ce modèle » mesure ce "
                    "qu'ils apportent sur le vôtre (loki-desktop eval --harness plan-off)."
                ),
                "FieldHelp",
                wrap=True,
            )
        )
        form = QFormLayout()
        self.code_model = QComboBox()
        self.code_model.setObjectName("CodeModel")
        self.code_model.setEditable(True)
        # a long model name is elided, never the page's width (the layout audit holds it)
        self.code_model.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.code_model.setMinimumContentsLength(16)
        if settings.code_model:
            self.code_model.addItem(settings.code_model)
        self.code_model.setCurrentText(settings.code_model)
        edit = self.code_model.lineEdit()
        assert edit is not None
        edit.setPlaceholderText(_("le modèle de conversation"))
        form.addRow(label(_("Modèle pour le code"), "CardTitle"), self.code_model)
        layout.addLayout(form)
        layout.addWidget(
            label(
                _(
                    "Un tour de code (une méthode de code choisie pour le message) se fait "
                    "entièrement sur ce modèle ; le badge de la méthode le nomme."
                ),
                "FieldHelp",
                wrap=True,
            )
        )

    def offer_models(self, names: list[str]) -> None:
        """The models the server has, to pick from (the text typed is kept)."""
        current = self.code_model.currentText()
        self.code_model.clear()
        self.code_model.addItems(names)
        self.code_model.setCurrentText(current)

    def apply(self, settings: Settings) -> None:
        settings.plan_enabled = self.plan.isChecked()
        settings.review_enabled = self.review.isChecked()
        settings.code_model = self.code_model.currentText().strip()
