"""OAuth sign-in to a remote server: a real MCP server that is its own authorization server
(tests/fakes/mcp_servers/oauth_server.py, the SDK's server auth), the real streamable-HTTP
client, the real keyring adapter on the in-memory backend. The test plays the person's browser
by following the authorization URL with httpx: the redirect lands on Loki's own loopback
listener."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from loki_desktop.core.mcp.oauth_vault import OAuthVault, session_key
from loki_desktop.core.mcp.service import McpService
from loki_desktop.persistence.secrets import KeyringSecrets
from loki_desktop.persistence.settings_file import SettingsFile
from tests.fakes.oauth_process import Browser, OAuthServer


@pytest.fixture
def oauth_server() -> Iterator[OAuthServer]:
    server = OAuthServer(expires_in=3600)
    yield server
    server.close()


def _service(tmp_path: Path, secrets: KeyringSecrets, url: str) -> McpService:
    service = McpService(SettingsFile(tmp_path / "settings.json"), secrets)
    service.add_http("remote", url, label="Serveur distant", enabled=True)
    return service


def _access_token(secrets: KeyringSecrets) -> str:
    return str(OAuthVault(secrets, "remote").load()["tokens"]["access_token"])


async def test_a_server_wanting_sign_in_says_so_then_the_browser_sign_in_connects(
    tmp_path: Path, secrets: KeyringSecrets, oauth_server: OAuthServer
) -> None:
    service = _service(tmp_path, secrets, oauth_server.url)
    manager = service.manager
    try:
        (notice,) = await manager.prepare()
        status = manager.status("remote")
        assert status.state == "signin"  # not "error"
        assert "Connexion requise" in status.message
        assert "loki-desktop mcp login remote" in status.message
        assert "Connexion requise" in notice
        assert await manager.prepare() == []  # not retried, nor told again, until signed in

        browser = Browser()
        result = await service.sign_in("remote", browser)
        assert result.ok, result.message
        assert result.tools == ("whoami", "raise_the_bar")
        (page,) = browser.opened
        assert "code_challenge_method=S256" in page  # PKCE
        assert "redirect_uri=http%3A%2F%2F127.0.0.1%3A" in page  # the loopback listener

        assert await manager.prepare() == []
        assert manager.status("remote").state == "connected"
        assert (await manager.call("mcp_remote_whoami", {})).output == "signed in"
    finally:
        await service.aclose()
    token = _access_token(secrets)
    assert service.signed_in("remote")
    # the tokens and the registration are in the keyring, and nowhere on disk
    stored = secrets.get(session_key("remote")) or ""
    assert token in stored
    assert "refresh_token" in stored
    assert "client_id" in stored
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert token not in path.read_text(errors="replace"), path


async def test_an_expired_token_is_refreshed_without_asking_the_person(
    tmp_path: Path, secrets: KeyringSecrets
) -> None:
    server = OAuthServer(expires_in=2)
    try:
        service = _service(tmp_path, secrets, server.url)
        try:
            assert (await service.sign_in("remote", Browser())).ok
        finally:
            await service.aclose()
        first = _access_token(secrets)
        expires_at = OAuthVault(secrets, "remote").load()["expires_at"]
        # until the announced lifetime has passed (a point in time, not a guess at a delay)
        await asyncio.sleep(max(0.0, expires_at - time.time()) + 0.1)
        # a new start of the app: a background connection, with nobody to ask
        again = McpService(SettingsFile(tmp_path / "settings.json"), secrets)
        try:
            assert await again.manager.prepare() == []
            assert again.manager.status("remote").state == "connected"
        finally:
            await again.aclose()
        assert _access_token(secrets) != first
    finally:
        grants = server.grants()
    assert grants == ["authorization_code", "refresh_token"]


async def test_sign_out_forgets_the_tokens(
    tmp_path: Path, secrets: KeyringSecrets, oauth_server: OAuthServer
) -> None:
    service = _service(tmp_path, secrets, oauth_server.url)
    try:
        assert (await service.sign_in("remote", Browser())).ok
        await service.sign_out("remote")
        assert not service.signed_in("remote")
        assert "access_token" not in (secrets.get(session_key("remote")) or "")
        await service.manager.prepare()
        assert service.manager.status("remote").state == "signin"
    finally:
        await service.aclose()


async def test_a_refused_authorization_is_told_and_stores_nothing(
    tmp_path: Path, secrets: KeyringSecrets, oauth_server: OAuthServer
) -> None:
    service = _service(tmp_path, secrets, oauth_server.url)

    async def person_says_no(url: str) -> None:
        redirect = dict(httpx.URL(url).params)["redirect_uri"]
        async with httpx.AsyncClient(trust_env=False) as http:
            await http.get(redirect, params={"error": "access_denied"})

    try:
        result = await service.sign_in("remote", person_says_no)
    finally:
        await service.aclose()
    assert not result.ok
    assert "access_denied" in result.message
    assert not service.signed_in("remote")
    assert json.loads(secrets.get(session_key("remote")) or "{}").get("tokens") is None


async def test_a_call_needing_more_scope_opens_the_browser_once_signed_in(
    tmp_path: Path, secrets: KeyringSecrets, oauth_server: OAuthServer
) -> None:
    """The window: a signed-in server's step-up (HTTP 403 insufficient_scope) asks the person
    in their browser during the call, and the call goes through."""
    service = _service(tmp_path, secrets, oauth_server.url)
    manager = service.manager
    try:
        assert (await service.sign_in("remote", Browser())).ok
        assert OAuthVault(secrets, "remote").load()["tokens"]["scope"] == "mcp"
        browser = Browser()
        manager.browser = browser
        assert await manager.prepare() == []
        assert browser.opened == []  # signed in: nothing to ask at the start
        assert (await manager.call("mcp_remote_raise_the_bar", {})).ok
        assert (await manager.call("mcp_remote_whoami", {})).output == "signed in"
        (page,) = browser.opened
        assert "scope=mcp+admin" in page
    finally:
        await service.aclose()
    assert OAuthVault(secrets, "remote").load()["tokens"]["scope"] == "mcp admin"


async def test_a_step_up_with_nobody_to_ask_fails_the_call_and_asks_for_sign_in(
    tmp_path: Path, secrets: KeyringSecrets, oauth_server: OAuthServer
) -> None:
    """`ask` in a terminal: the call fails saying why, the server waits for a sign-in, and
    signing in again (the card's button, `mcp login`) grants the larger scope."""
    service = _service(tmp_path, secrets, oauth_server.url)
    manager = service.manager
    try:
        assert (await service.sign_in("remote", Browser())).ok
        assert await manager.prepare() == []
        assert (await manager.call("mcp_remote_raise_the_bar", {})).ok
        refused = await manager.call("mcp_remote_whoami", {})
        assert not refused.ok
        assert "requires the user to sign in again" in refused.output
        await reached(service, "signin")
        browser = Browser()
        assert (await service.sign_in("remote", browser)).ok
        assert "scope=mcp+admin" in browser.opened[0]
        assert await manager.prepare() == []
        assert (await manager.call("mcp_remote_whoami", {})).output == "signed in"
    finally:
        await service.aclose()


async def reached(service: McpService, state: str) -> None:
    """Wait for the server's state (its connection closes in the background)."""
    seen = asyncio.Event()
    unsubscribe = service.manager.subscribe(lambda status: status.state == state and seen.set())
    try:
        if service.manager.status("remote").state != state:
            await asyncio.wait_for(seen.wait(), 30)
    finally:
        unsubscribe()


async def test_a_2025_03_26_server_without_resource_metadata_is_signed_in_to(
    tmp_path: Path, secrets: KeyringSecrets
) -> None:
    """That revision's layout: no protected resource metadata; the authorization server
    metadata at the origin's well-known address (its issuer: the origin)."""
    server = OAuthServer(legacy=True)
    try:
        service = _service(tmp_path, secrets, server.url)
        try:
            async with httpx.AsyncClient(trust_env=False) as http:
                base = server.url.removesuffix("/mcp")
                prm = await http.get(f"{base}/.well-known/oauth-protected-resource/mcp")
                assert prm.status_code == 404  # the layout holds: nothing to discover there
            result = await service.sign_in("remote", Browser())
            assert result.ok, result.message
            assert await service.manager.prepare() == []
            assert (await service.manager.call("mcp_remote_whoami", {})).output == "signed in"
        finally:
            await service.aclose()
    finally:
        log = server.log()
    assert log == ["REGISTER", "GRANT authorization_code"]


async def test_legacy_metadata_naming_another_issuer_is_not_used(
    tmp_path: Path, secrets: KeyringSecrets
) -> None:
    """RFC 8414 §3.3: metadata fetched at <origin>/.well-known/oauth-authorization-server must
    name the issuer <origin>; naming <origin>/oauth, it is not used: no registration, no
    page opened, nothing kept (the conformance suite 0.1.16's 2025-03-26 mock does this)."""
    server = OAuthServer(legacy=True, claimed_issuer_path="/oauth")
    browser = Browser()
    try:
        service = _service(tmp_path, secrets, server.url)
        try:
            result = await service.sign_in("remote", browser)
        finally:
            await service.aclose()
    finally:
        log = server.log()
    assert not result.ok
    assert "issuer mismatch" in result.message
    assert browser.opened == []
    assert log == []
    assert not service.signed_in("remote")


async def test_a_failure_after_a_successful_sign_in_is_told_as_itself_not_as_the_first_401(
    tmp_path: Path, secrets: KeyringSecrets
) -> None:
    # the first request's 401 led to the sign-in; the server then refuses the signed-in
    # request for another reason: the person must read that reason, not "no key is sent"
    server = OAuthServer(demand_header="X-Demanded")
    try:
        service = _service(tmp_path, secrets, server.url)
        try:
            result = await service.sign_in("remote", Browser())
        finally:
            await service.aclose()
    finally:
        server.close()
    assert not result.ok
    assert "Missing x-demanded header" in result.message
    assert "401" not in result.message
    assert "aucune clé" not in result.message
