"""Enterprise-managed authorization (SEP-990): the person signs in once at their
organisation's identity provider, in the browser; Loki exchanges that ID token for an
identity assertion grant, and the MCP server's authorization server for an access token.

Real processes on loopback (tests/fakes/mcp_servers/enterprise_server.py: an OpenID
provider, an authorization server taking the jwt-bearer grant, the SDK's MCP server), the
real keyring adapter on the in-memory backend. The test plays the person's browser."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from loki_desktop.core.mcp import enterprise
from loki_desktop.core.mcp.config import McpConfigError, OAuthConfig
from loki_desktop.core.mcp.oauth_vault import OAuthVault, session_key
from loki_desktop.core.mcp.service import McpService
from loki_desktop.persistence.secrets import KeyringSecrets
from loki_desktop.persistence.settings_file import SettingsFile
from tests.fakes.mcp_servers.enterprise_server import (
    AS_CLIENT,
    AS_SECRET,
    IDP_CLIENT,
    JWT_BEARER,
    TOKEN_EXCHANGE,
)
from tests.fakes.oauth_process import Browser, EnterpriseServers

SIGNED_IN = ["authorization_code", TOKEN_EXCHANGE, JWT_BEARER]


@pytest.fixture
def corp() -> Iterator[EnterpriseServers]:
    servers = EnterpriseServers()
    yield servers
    servers.close()


def _settings(servers: EnterpriseServers) -> OAuthConfig:
    return OAuthConfig(
        client_id=AS_CLIENT,
        grant="enterprise",
        issuer=servers.auth_server,
        idp_issuer=servers.idp,
        idp_client_id=IDP_CLIENT,
    )


def _service(tmp_path: Path, secrets: KeyringSecrets, servers: EnterpriseServers) -> McpService:
    service = McpService(SettingsFile(tmp_path / "settings.json"), secrets)
    service.add_http("corp", servers.url, label="Outils maison", enabled=True)
    service.set_oauth("corp", _settings(servers), client_secret=AS_SECRET)
    return service


def _record(secrets: KeyringSecrets) -> dict[str, Any]:
    return OAuthVault(secrets, "corp").load()


async def test_one_sso_sign_in_opens_the_server_and_lives_in_the_keyring(
    tmp_path: Path, secrets: KeyringSecrets, corp: EnterpriseServers
) -> None:
    service = _service(tmp_path, secrets, corp)
    manager = service.manager
    try:
        await manager.prepare()
        assert manager.status("corp").state == "signin"  # nothing kept yet, nobody asked

        browser = Browser()
        result = await service.sign_in("corp", browser)
        assert result.ok, result.message
        (page,) = browser.opened
        assert page.startswith(f"{corp.idp}/authorize?")  # the IdP's page, not the server's
        assert "code_challenge_method=S256" in page
        assert "scope=openid+offline_access" in page

        assert await manager.prepare() == []
        answer = await manager.call("mcp_corp_whoami", {})
        assert answer.output == "signed in as ada@example.com"
    finally:
        await service.aclose()
    record = _record(secrets)
    assert record["idp"]["id_token"]
    assert record["idp"]["refresh_token"]
    assert record["tokens"]["access_token"]
    stored = secrets.get(session_key("corp")) or ""
    for path in tmp_path.rglob("*"):  # the settings file names the parties, holds no token
        if path.is_file():
            text = path.read_text(errors="replace")
            assert record["idp"]["id_token"] not in text, path
            assert AS_SECRET not in text, path
    assert record["tokens"]["access_token"] in stored
    assert corp.grants() == SIGNED_IN


async def test_an_expired_id_token_is_renewed_at_the_idp_without_the_browser(
    tmp_path: Path, secrets: KeyringSecrets
) -> None:
    servers = EnterpriseServers(id_token_ttl=30)  # inside the renewal margin at once
    try:
        service = _service(tmp_path, secrets, servers)
        try:
            assert (await service.sign_in("corp", Browser())).ok
        finally:
            await service.aclose()
        first = _record(secrets)["idp"]["id_token"]
        OAuthVault(secrets, "corp").update(tokens=None)  # the access token is gone
        # a new start of the app: a background connection, with nobody to ask
        again = McpService(SettingsFile(tmp_path / "settings.json"), secrets)
        try:
            assert await again.manager.prepare() == []
            assert again.manager.status("corp").state == "connected"
        finally:
            await again.aclose()
        assert _record(secrets)["idp"]["id_token"] != first
    finally:
        grants = servers.grants()
    assert grants == [*SIGNED_IN, "refresh_token", TOKEN_EXCHANGE, JWT_BEARER]


async def test_an_idp_wanting_a_client_secret_gets_it_from_the_keyring(
    tmp_path: Path, secrets: KeyringSecrets
) -> None:
    servers = EnterpriseServers(idp_secret="idp-s3cret:/")
    try:
        service = McpService(SettingsFile(tmp_path / "settings.json"), secrets)
        service.add_http("corp", servers.url, enabled=True)
        service.set_oauth("corp", _settings(servers), client_secret=AS_SECRET)
        try:
            refused = await service.sign_in("corp", Browser())
            assert not refused.ok  # a public client there: the IdP wants its secret
            assert "invalid_client" in refused.message
            settings = _settings(servers)
            service.set_oauth("corp", settings, client_secret=AS_SECRET, idp_secret="idp-s3cret:/")
            result = await service.sign_in("corp", Browser())
            assert result.ok, result.message
        finally:
            await service.aclose()
        assert secrets.get("mcp/corp/idp-secret") == "idp-s3cret:/"
        assert "idp-s3cret" not in (tmp_path / "settings.json").read_text()
    finally:
        grants = servers.grants()
    assert grants == SIGNED_IN


async def test_an_id_token_the_idp_refuses_is_dropped_and_renewed_next_time(
    tmp_path: Path, secrets: KeyringSecrets, corp: EnterpriseServers
) -> None:
    service = _service(tmp_path, secrets, corp)
    try:
        assert (await service.sign_in("corp", Browser())).ok
    finally:
        await service.aclose()
    vault = OAuthVault(secrets, "corp")
    idp = _record(secrets)["idp"]
    head, claims, _signature = idp["id_token"].split(".")
    vault.update(tokens=None, idp={**idp, "id_token": f"{head}.{claims}.AAAA"})  # revoked
    again = McpService(SettingsFile(tmp_path / "settings.json"), secrets)
    try:
        await again.manager.prepare()
        assert again.manager.status("corp").state == "error"
        assert "invalid_grant" in again.manager.status("corp").message
        assert "id_token" not in _record(secrets)["idp"]  # not offered again
    finally:
        await again.aclose()
    later = McpService(SettingsFile(tmp_path / "settings.json"), secrets)  # the next start
    try:
        assert await later.manager.prepare() == []
        assert later.manager.status("corp").state == "connected"
    finally:
        await later.aclose()
    assert corp.grants() == [*SIGNED_IN, "refresh_token", TOKEN_EXCHANGE, JWT_BEARER]


async def test_sign_out_forgets_the_idp_sign_in_too(
    tmp_path: Path, secrets: KeyringSecrets, corp: EnterpriseServers
) -> None:
    service = _service(tmp_path, secrets, corp)
    try:
        assert (await service.sign_in("corp", Browser())).ok
        await service.sign_out("corp")
        assert not service.signed_in("corp")
        assert "idp" not in _record(secrets)
        await service.manager.prepare()
        assert service.manager.status("corp").state == "signin"
    finally:
        await service.aclose()


async def test_the_authorization_server_is_proposed_from_the_servers_own_metadata(
    corp: EnterpriseServers,
) -> None:
    assert await enterprise.authorization_server_of(corp.url) == corp.auth_server


def test_enterprise_settings_name_both_parties_over_https() -> None:
    with pytest.raises(McpConfigError, match="idp_issuer"):
        OAuthConfig.parse({"grant": "enterprise", "client_id": "a", "issuer": "https://as"})
    with pytest.raises(McpConfigError, match="https"):
        OAuthConfig.parse(
            {
                "grant": "enterprise",
                "client_id": "a",
                "issuer": "http://as.example.com",
                "idp_issuer": "https://idp.example.com",
                "idp_client_id": "b",
            }
        )
    full = {
        "grant": "enterprise",
        "client_id": "a",
        "issuer": "https://as.example.com",
        "idp_issuer": "https://idp.example.com",
        "idp_client_id": "b",
    }
    assert OAuthConfig.parse(full).to_json() == full
