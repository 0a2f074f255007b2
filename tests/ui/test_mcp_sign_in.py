"""The card of a remote server that wants OAuth: *Se connecter* opens the authorization page
in the browser (QDesktopServices, whose http handler the test takes: it plays the browser
with httpx), the redirect lands on Loki's loopback listener, the card shows connected."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QDesktopServices

from loki_desktop.core.services import Services
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.oauth_process import OAuthServer
from tests.fakes.ollama_server import FakeOllama
from tests.ui.helpers import open_window, wait_until
from tests.ui.test_settings import close, open_dialog

SESSION = ("loki-desktop", "mcp/remote/oauth")


class BrowserStandIn(QObject):
    """Takes the URLs the app asks the desktop to open (QDesktopServices' own hook)."""

    def __init__(self) -> None:
        super().__init__()
        self.opened: list[str] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.opened.append(url.toString())


@pytest.fixture
def browser() -> Iterator[BrowserStandIn]:
    stand_in = BrowserStandIn()
    QDesktopServices.setUrlHandler("http", stand_in, "open")
    yield stand_in
    QDesktopServices.unsetUrlHandler("http")


async def test_sign_in_from_the_card(
    services: Services,
    qtbot: Any,
    ollama: FakeOllama,
    memory_keyring: MemoryKeyring,
    browser: BrowserStandIn,
    tmp_path: Path,
) -> None:
    server = OAuthServer()
    remote = {"enabled": True, "label": "Serveur distant", "url": server.url}
    (services.data_home / "settings.json").write_text(
        json.dumps({"mcp_servers": {"remote": remote}}), encoding="utf-8"
    )
    try:
        async with open_window(services, qtbot, ollama.url) as window:
            dialog = open_dialog(window, qtbot)
            dialog.show_page("mcp")
            card = dialog.mcp.cards["remote"]
            row = card.sign_in_row
            assert row is not None
            await window.runtime.mcp.manager.prepare()  # as a first message would
            manager = window.runtime.mcp.manager
            await wait_until(
                lambda: card.dot.property("state") == "signin",
                within=30,
                what=f"signin, not {manager.status('remote')}",
            )
            assert card.dot.text() == "● Connexion requise"  # not an error
            assert not card.error.isVisibleTo(card)
            assert row.sign_in_button.isVisibleTo(card)
            dialog.resize(900, 700)
            dialog.grab().save(str(tmp_path / "mcp-sign-in-required.png"))

            row.sign_in_button.click()
            await wait_until(lambda: browser.opened, within=30, what="the browser opened")
            assert "Connexion en cours" in row.state.text()
            async with httpx.AsyncClient(follow_redirects=True, trust_env=False) as http:
                page = await http.get(browser.opened[0])
            assert "Connexion réussie" in page.text
            await wait_until(lambda: row.signed_in, within=30, what="signed in")
            await wait_until(lambda: card.dot.property("state") == "connected", within=30)
            assert "Connecté avec OAuth" in row.state.text()
            assert row.sign_out_button.isVisibleTo(card)
            assert "access_token" in memory_keyring.values[SESSION]
            assert "Connecté. Outils : whoami, raise_the_bar." in card.result.text()
            dialog.grab().save(str(tmp_path / "mcp-signed-in.png"))

            row.sign_out_button.click()
            await wait_until(lambda: not row.signed_in, within=30, what="signed out")
            assert "access_token" not in memory_keyring.values.get(SESSION, "")
            await close(dialog)
    finally:
        server.close()


async def test_enterprise_sign_in_set_up_and_done_from_the_card(
    services: Services,
    qtbot: Any,
    ollama: FakeOllama,
    memory_keyring: MemoryKeyring,
    browser: BrowserStandIn,
    tmp_path: Path,
) -> None:
    """*Connexion d'entreprise…*: the form takes what the administrator gave, proposes the
    authorization server the MCP server announces, keeps the secret in the keyring; then
    *Se connecter* opens the identity provider's page (tests/fakes/mcp_servers/
    enterprise_server.py), and the card says who signed in."""
    from tests.fakes.mcp_servers.enterprise_server import AS_CLIENT, AS_SECRET, IDP_CLIENT
    from tests.fakes.oauth_process import EnterpriseServers

    servers = EnterpriseServers()
    corp = {"enabled": True, "label": "Outils maison", "url": servers.url}
    (services.data_home / "settings.json").write_text(
        json.dumps({"mcp_servers": {"corp": corp}}), encoding="utf-8"
    )
    try:
        async with open_window(services, qtbot, ollama.url) as window:
            dialog = open_dialog(window, qtbot)
            dialog.show_page("mcp")
            dialog.resize(900, 900)
            row = dialog.mcp.cards["corp"].sign_in_row
            assert row is not None
            assert not row.form.isVisibleTo(row.card)
            row.enterprise_button.click()
            form = row.form
            assert form.isVisibleTo(row.card)
            form.idp_issuer.setText(servers.idp)
            form.idp_client_id.setText(IDP_CLIENT)
            form.client_id.setText(AS_CLIENT)
            form.client_secret.setText(AS_SECRET)
            form.propose_button.click()
            await wait_until(lambda: form.issuer.text() == servers.auth_server, within=30)
            dialog.grab().save(str(tmp_path / "mcp-enterprise-form.png"))
            form.save_button.click()
            await wait_until(
                lambda: "enregistrée" in dialog.mcp.cards["corp"].result.text(), within=30
            )
            assert memory_keyring.values[("loki-desktop", "mcp/corp/oauth-secret")] == AS_SECRET
            saved = json.loads((services.data_home / "settings.json").read_text())
            assert saved["mcp_servers"]["corp"]["oauth"]["issuer"] == servers.auth_server
            assert AS_SECRET not in json.dumps(saved)

            card = dialog.mcp.cards["corp"]  # rebuilt with the new settings
            row = card.sign_in_row
            assert row is not None
            assert row.enterprise
            row.sign_in_button.click()
            await wait_until(lambda: browser.opened, within=30, what="the browser opened")
            assert browser.opened[0].startswith(f"{servers.idp}/authorize?")
            async with httpx.AsyncClient(follow_redirects=True, trust_env=False) as http:
                page = await http.get(browser.opened[0])
            assert "Connexion réussie" in page.text
            await wait_until(lambda: row.signed_in, within=30, what="signed in")
            assert "fournisseur d'identité" in row.state.text()
            assert "Connecté. Outils : whoami." in card.result.text()
            dialog.grab().save(str(tmp_path / "mcp-enterprise-signed-in.png"))
            await close(dialog)
    finally:
        servers.close()
