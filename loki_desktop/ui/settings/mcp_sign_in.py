"""The OAuth row of an HTTP server's card: its sign-in state, *Se connecter*, *Se déconnecter*,
*Connexion d'entreprise…* (which shows the form of ui.settings.mcp_enterprise).

The authorization page opens in the system browser (QDesktopServices); the service waits for
the browser to come back to its loopback listener, keeps the tokens in the keyring and
restarts the server's connection.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QHBoxLayout, QWidget

from loki_desktop.core.i18n import _
from loki_desktop.core.mcp.status import ServerStatus
from loki_desktop.ui.qt_helpers import button, label, open_in_browser, set_state
from loki_desktop.ui.settings.mcp_enterprise import EnterpriseForm

if TYPE_CHECKING:
    from loki_desktop.ui.settings.mcp_card import ServerCardPart


class SignInRow(QWidget):
    """Sign-in state and buttons; `refresh()` reads the keyring (in a thread)."""

    def __init__(self, card: ServerCardPart) -> None:
        super().__init__()
        self.card = card
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(8)
        self.state = label("", "CardDetail", wrap=True)
        row.addWidget(self.state, 1)
        self.sign_in_button = button(_("Se connecter"), primary=True)
        self.sign_in_button.setToolTip(
            _("Ouvre la page de connexion du serveur dans votre navigateur (OAuth).")
        )
        self.sign_in_button.clicked.connect(self.sign_in)
        row.addWidget(self.sign_in_button)
        self.sign_out_button = button(_("Se déconnecter"))
        self.sign_out_button.clicked.connect(self.sign_out)
        row.addWidget(self.sign_out_button)
        oauth = card.view.config.oauth
        self.enterprise = oauth is not None and oauth.grant == "enterprise"
        if self.enterprise:
            self.sign_in_button.setToolTip(
                _("Ouvre la page de connexion de votre fournisseur d'identité (entreprise).")
            )
        self.form = EnterpriseForm(card)  # the card puts it under this row
        self.enterprise_button = button(_("Connexion d'entreprise…"))
        self.enterprise_button.setCheckable(True)
        self.enterprise_button.toggled.connect(self.form.setVisible)
        row.addWidget(self.enterprise_button)
        self.signed_in = False
        self.waiting = False
        self.show_state()

    def refresh(self) -> None:
        self.card.page.tasks.spawn(self._read())

    async def _read(self) -> None:
        service, server_id = self.card.page.service, self.card.server_id
        self.signed_in = await asyncio.to_thread(service.signed_in, server_id)
        self.show_state()

    def update_status(self, status: ServerStatus) -> None:
        if status.state == "signin":
            self.signed_in = False
        elif status.state == "connected" and not self.signed_in:
            self.refresh()  # connected through a sign-in made elsewhere (`mcp login`)
        self.show_state(status)

    def show_state(self, status: ServerStatus | None = None) -> None:
        if self.waiting:
            text = _("Connexion en cours : terminez-la dans votre navigateur…")
        elif self.signed_in and self.enterprise:
            text = _(
                "Connecté par votre fournisseur d'identité (connexion d'entreprise ; "
                "jetons dans le trousseau système)."
            )
        elif self.signed_in:
            text = _("Connecté avec OAuth (jetons dans le trousseau système).")
        elif status is not None and status.state == "signin":
            text = _("Connexion requise : ce serveur demande de vous identifier.")
        else:
            text = _("Connexion OAuth : non connecté.")
        self.state.setText(text)
        set_state(self.state, "state", "signin" if not self.signed_in else "ok")
        self.sign_in_button.setEnabled(not self.waiting)
        self.sign_in_button.setVisible(not self.signed_in)
        self.sign_out_button.setVisible(self.signed_in and not self.waiting)

    def sign_in(self) -> asyncio.Task[None]:
        self.waiting = True
        self.show_state()
        return self.card.page.tasks.spawn(self._sign_in())

    async def _sign_in(self) -> None:
        page, server_id = self.card.page, self.card.server_id
        try:
            result = await page.service.sign_in(server_id, open_in_browser)
        finally:
            self.waiting = False
        card = page.cards.get(server_id)  # the cards may have been rebuilt meanwhile
        if card is None or card.sign_in_row is None:
            return
        row = card.sign_in_row
        row.signed_in = result.ok
        row.show_state()
        if result.ok:
            page.service.manager.connect(server_id)  # its tools, ready for the next message
            names = ", ".join(result.tools) or "—"
            card.show_message(_("Connecté. Outils : {names}.").format(names=names), error=False)
        else:
            card.show_message(
                _("Connexion impossible : {message}").format(message=result.message), error=True
            )

    def sign_out(self) -> asyncio.Task[None]:
        return self.card.page.tasks.spawn(self._sign_out())

    async def _sign_out(self) -> None:
        await self.card.page.service.sign_out(self.card.server_id)
        self.signed_in = False
        self.show_state()
        self.card.show_message(_("Déconnecté : jetons effacés du trousseau."), error=False)
