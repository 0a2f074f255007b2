"""On each MCP server's card: may it ask the person's model for text (sampling)?"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QWidget

from loki_desktop.core.i18n import _
from loki_desktop.core.mcp.host import SAMPLING_POLICIES, SamplingPolicy
from loki_desktop.ui.qt_helpers import label

if TYPE_CHECKING:
    from loki_desktop.ui.settings.mcp_card import ServerCardPart


def _labels() -> dict[SamplingPolicy, str]:
    return {
        "always": _("toujours"),
        "ask": _("demander"),
        "never": _("jamais"),
    }


def sampling_picker(card: ServerCardPart) -> QWidget:
    """ "Utiliser votre modèle : toujours / demander / jamais", saved when changed."""
    box = QWidget()
    row = QHBoxLayout(box)
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(6)
    row.addWidget(label(_("Réponses de votre modèle :"), "CardDetail"))
    combo = QComboBox()
    combo.setObjectName("SamplingPolicy")
    combo.setToolTip(
        _(
            "Quand ce serveur demande une réponse à votre modèle local (sampling) : la "
            "donner toujours, vous demander à chaque fois, ou refuser."
        )
    )
    for policy, text in _labels().items():
        combo.addItem(text, policy)
    combo.setCurrentIndex(SAMPLING_POLICIES.index(card.view.config.sampling))
    row.addWidget(combo)
    service, server_id = card.page.service, card.server_id

    def chosen(_index: int) -> None:
        policy = combo.currentData()
        card.page.run(lambda: service.set_sampling(server_id, policy), card)

    combo.currentIndexChanged.connect(chosen)
    card.sampling_combo = combo
    return box
