"""The *Connexion d'entreprise* form of a remote server's card (SEP-990, core.mcp.enterprise).

What the person's administrator hands out: the identity provider's address and Loki's client
id there (a secret if it wants one), the MCP server's authorization server (*Proposer* reads
the one the server announces, for the person to see and keep) and Loki's client id and secret
there. Secrets go to the keyring through the service; the form never shows them back.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLineEdit, QVBoxLayout, QWidget

from loki_desktop.core.i18n import _
from loki_desktop.core.mcp import enterprise
from loki_desktop.core.mcp.config import OAuthConfig
from loki_desktop.core.mcp.oauth import SignInFailed
from loki_desktop.ui.qt_helpers import button, label

if TYPE_CHECKING:
    from loki_desktop.ui.settings.mcp_card import ServerCardPart

KEPT = "•••• "  # the start of a placeholder saying a secret is already in the keyring


class EnterpriseForm(QWidget):
    """Hidden until the sign-in row's *Connexion d'entreprise…*; `save()` keeps it."""

    def __init__(self, card: ServerCardPart) -> None:
        super().__init__()
        self.card = card
        current = card.view.config.oauth
        mine = current if current is not None and current.grant == "enterprise" else None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(
            label(
                _(
                    "Connexion d'entreprise : vous vous connectez à votre fournisseur "
                    "d'identité, qui ouvre ce serveur. Les valeurs viennent de votre "
                    "administrateur."
                ),
                "CardDetail",
                wrap=True,
            )
        )
        grid = QGridLayout()
        grid.setHorizontalSpacing(10)
        self.idp_issuer = self._line(grid, _("Fournisseur d'identité"), "https://…")
        self.idp_client_id = self._line(grid, _("Identifiant de Loki chez lui"), "")
        self.idp_secret = self._line(grid, _("Son secret (s'il en veut un)"), "", secret=True)
        self.issuer = self._line(grid, _("Serveur d'autorisation"), "https://…")
        self.client_id = self._line(grid, _("Identifiant client"), "")
        self.client_secret = self._line(grid, _("Secret client"), "", secret=True)
        grid.setColumnStretch(1, 1)
        layout.addLayout(grid)
        if mine is not None:
            self.idp_issuer.setText(mine.idp_issuer)
            self.idp_client_id.setText(mine.idp_client_id)
            self.issuer.setText(mine.issuer)
            self.client_id.setText(mine.client_id)
            self.client_secret.setPlaceholderText(KEPT + _("enregistré dans le trousseau"))
        actions = QHBoxLayout()
        self.propose_button = button(_("Proposer le serveur d'autorisation"))
        self.propose_button.setToolTip(_("Celui que le serveur annonce ; vérifiez-le."))
        self.propose_button.clicked.connect(self.propose)
        actions.addWidget(self.propose_button)
        actions.addStretch(1)
        self.save_button = button(_("Enregistrer"), primary=True)
        self.save_button.clicked.connect(self.save)
        actions.addWidget(self.save_button)
        layout.addLayout(actions)
        self.setVisible(False)

    def _line(self, grid: QGridLayout, caption: str, hint: str, secret: bool = False) -> QLineEdit:
        row = grid.rowCount()
        grid.addWidget(label(caption, "CardTitle"), row, 0)
        field = QLineEdit()
        field.setPlaceholderText(hint or (_("gardé dans le trousseau système") if secret else ""))
        if secret:
            field.setEchoMode(QLineEdit.EchoMode.Password)
        grid.addWidget(field, row, 1)
        return field

    def propose(self) -> asyncio.Task[None]:
        return self.card.page.tasks.spawn(self._propose())

    async def _propose(self) -> None:
        url = self.card.view.config.url
        try:
            issuer = await enterprise.authorization_server_of(url)
        except (SignInFailed, OSError, ValueError) as exc:
            self.card.show_message(str(exc), error=True)
            return
        self.issuer.setText(issuer)

    def save(self) -> asyncio.Task[bool]:
        data = {
            "grant": "enterprise",
            "client_id": self.client_id.text().strip(),
            "issuer": self.issuer.text().strip(),
            "idp_issuer": self.idp_issuer.text().strip(),
            "idp_client_id": self.idp_client_id.text().strip(),
        }
        secret = self.client_secret.text() or None
        idp_secret = self.idp_secret.text() or None
        service, server_id = self.card.page.service, self.card.server_id

        def keep() -> None:
            oauth = OAuthConfig.parse(data)  # McpConfigError: said on the card
            service.set_oauth(server_id, oauth, client_secret=secret, idp_secret=idp_secret)

        page = self.card.page

        def kept(_result: object) -> None:
            page.reload()  # the card shows the server's new settings
            card = page.cards.get(server_id)
            if card is not None:
                card.show_message(
                    _("Connexion d'entreprise enregistrée : cliquez sur Se connecter."),
                    error=False,
                )

        return page.run(keep, self.card, then=kept)
