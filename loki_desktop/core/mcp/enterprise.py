"""Enterprise-managed authorization (SEP-990): the person's SSO sign-in at their organisation's
identity provider opens the MCP server, with no consent page per server.

Three legs:
- the ID token: the person signs in to the IdP in the system browser (OpenID Connect
  authorization code + PKCE, loopback redirect: `IdpSession`). The ID token and the IdP's
  refresh token live in the keyring (the "idp" part of the OAuthVault record); an expired ID
  token is renewed with the refresh token, and the browser opens again only when that fails;
- the identity assertion grant (ID-JAG): an RFC 8693 token exchange at the IdP's token
  endpoint (`IdpSession.exchange`);
- the access token: the RFC 7523 jwt-bearer grant at the MCP server's authorization server,
  done by the SDK's `IdentityAssertionOAuthProvider`. That server is configuration
  (`OAuthConfig.issuer`), never taken from the MCP server at connection time: the server could
  otherwise send the ID-JAG and the client secret anywhere. `authorization_server_of` reads
  the server's protected resource metadata once, when the person sets the sign-in up, to
  propose it.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import json
import secrets as random
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import httpx
import httpx2
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.shared.auth_utils import check_resource_allowed, resource_url_from_server_url

from loki_desktop.core.i18n import _
from loki_desktop.core.loopback import direct_mounts
from loki_desktop.core.mcp.config import OAuthConfig
from loki_desktop.core.mcp.oauth import BrowserSignIn, KeyringStorage, SignInFailed, SignInRequired
from loki_desktop.core.mcp.oauth_vault import OAuthVault
from loki_desktop.core.ports import SecretStore

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag"
EXPIRY_MARGIN_S = 60  # an ID token this close to its end is renewed before it is presented
HTTP_TIMEOUT_S = 30.0


def _http(url: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(timeout=HTTP_TIMEOUT_S, mounts=direct_mounts(url))


def _json(response: httpx.Response) -> dict[str, Any]:
    """A JSON object answer, or {} (an HTML error page, a list...)."""
    try:
        data = response.json()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _same(a: str, b: str) -> bool:
    """Issuer identifiers compared as strings, a trailing slash aside."""
    return a.rstrip("/") == b.rstrip("/")


def id_token_claims(token: str) -> dict[str, Any]:
    """The claims of a JWT, unverified: an ID token that came straight from the IdP's token
    endpoint over TLS needs no signature check (OpenID Connect Core §3.1.3.7 item 6); its
    issuer, audience, expiry and nonce are checked by the caller."""
    try:
        payload = token.split(".")[1]
        data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError, binascii.Error):
        return {}
    return data if isinstance(data, dict) else {}


def remember_id_token(vault: OAuthVault, id_token: str, refresh_token: str | None = None) -> None:
    """Keep the person's IdP sign-in in the keyring (blocking: call it in a thread)."""
    record = vault.load().get("idp")
    idp: dict[str, str] = dict(record) if isinstance(record, dict) else {}
    idp["id_token"] = id_token
    if refresh_token:
        idp["refresh_token"] = refresh_token
    vault.update(idp=idp)


class IdpSession:
    """The ID token of the person at their IdP, and its exchange for an ID-JAG."""

    def __init__(
        self,
        config: OAuthConfig,
        vault: OAuthVault,
        sign_in: BrowserSignIn | None,
        on_required: Callable[[], None],
    ) -> None:
        self.config = config
        self.vault = vault
        self.sign_in = sign_in
        self.on_required = on_required
        self._metadata: dict[str, Any] | None = None

    async def id_token(self) -> str:
        record = (await asyncio.to_thread(self.vault.load)).get("idp")
        idp = record if isinstance(record, dict) else {}
        token = str(idp.get("id_token") or "")
        if token and self._valid(token, margin_s=EXPIRY_MARGIN_S):
            return token
        metadata = await self.metadata()
        if idp.get("refresh_token"):
            renewed = await self._refresh(metadata, str(idp["refresh_token"]))
            if renewed:
                return renewed
        if self.sign_in is None:
            self.on_required()
            raise SignInRequired()
        return await self._browser_sign_in(metadata)

    async def exchange(self, id_token: str, audience: str, resource: str) -> str:
        """RFC 8693 at the IdP: the ID token for an ID-JAG naming `audience` (the MCP server's
        authorization server) and `resource` (the MCP server)."""
        data = {
            "grant_type": TOKEN_EXCHANGE,
            "requested_token_type": ID_JAG_TYPE,
            "subject_token": id_token,
            "subject_token_type": ID_TOKEN_TYPE,
            "audience": audience,
            "resource": resource,
            "client_id": self.config.idp_client_id,
        }
        if self.config.scope:
            data["scope"] = self.config.scope
        try:
            body = await self._token_request(await self.metadata(), data)
        except SignInFailed:
            # a revoked or refused ID token is not offered again: the next attempt renews it
            await asyncio.to_thread(self._drop_id_token)
            raise
        if body.get("issued_token_type") != ID_JAG_TYPE or not body.get("access_token"):
            raise SignInFailed(_("le fournisseur d'identité n'a pas délivré d'assertion (ID-JAG)"))
        return str(body["access_token"])

    def _drop_id_token(self) -> None:
        record = self.vault.load().get("idp")
        if isinstance(record, dict) and record.pop("id_token", None) is not None:
            self.vault.update(idp=record or None)

    async def metadata(self) -> dict[str, Any]:
        """The IdP's OpenID Connect discovery document, its issuer checked (RFC 8414 §3.3)."""
        if self._metadata is None:
            issuer = self.config.idp_issuer
            url = f"{issuer.rstrip('/')}/.well-known/openid-configuration"
            async with _http(url) as http:
                response = await http.get(url)
            data = _json(response) if response.status_code == 200 else {}
            if not _same(str(data.get("issuer", "")), issuer):
                raise SignInFailed(
                    _("le fournisseur d'identité {issuer} ne publie pas sa configuration").format(
                        issuer=issuer
                    )
                )
            if not data.get("token_endpoint"):
                raise SignInFailed(
                    _("le fournisseur d'identité n'a pas de point d'accès aux jetons")
                )
            self._metadata = data
        return self._metadata

    def _valid(self, token: str, margin_s: float = 0.0, nonce: str | None = None) -> bool:
        claims = id_token_claims(token)
        audience = claims.get("aud")
        audiences = audience if isinstance(audience, list) else [audience]
        expires = claims.get("exp")
        return (
            _same(str(claims.get("iss", "")), self.config.idp_issuer)
            and self.config.idp_client_id in audiences
            and isinstance(expires, int | float)
            and expires - margin_s > time.time()
            and (nonce is None or claims.get("nonce") == nonce)
        )

    async def _token_request(
        self, metadata: dict[str, Any], data: dict[str, str]
    ) -> dict[str, Any]:
        """A request to the IdP's token endpoint: as a confidential client (client_secret_basic,
        RFC 6749 §2.3.1) when a secret is kept for Loki there, else as a public one."""
        url = str(metadata["token_endpoint"])
        headers = {"Accept": "application/json"}
        secret = await asyncio.to_thread(self.vault.idp_secret)
        if secret:
            data = {name: value for name, value in data.items() if name != "client_id"}
            pair = f"{quote(self.config.idp_client_id, safe='')}:{quote(secret, safe='')}"
            headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
        async with _http(url) as http:
            response = await http.post(url, data=data, headers=headers)
        body = _json(response)
        if response.status_code != 200:
            error = body.get("error_description") or body.get("error")
            raise SignInFailed(
                _("le fournisseur d'identité refuse ({status}) : {error}").format(
                    status=response.status_code, error=error or "—"
                )
            )
        return body

    async def _refresh(self, metadata: dict[str, Any], refresh_token: str) -> str | None:
        data = {
            "grant_type": "refresh_token",
            "refresh_token": refresh_token,
            "client_id": self.config.idp_client_id,
            "scope": "openid",
        }
        try:
            body = await self._token_request(metadata, data)
        except SignInFailed:
            return None  # revoked or expired: a new sign-in follows
        token = str(body.get("id_token") or "")
        if not self._valid(token):
            return None
        new_refresh = body.get("refresh_token") or refresh_token
        await asyncio.to_thread(remember_id_token, self.vault, token, str(new_refresh))
        return token

    async def _browser_sign_in(self, metadata: dict[str, Any]) -> str:
        assert self.sign_in is not None
        if not metadata.get("authorization_endpoint"):
            raise SignInFailed(_("le fournisseur d'identité n'a pas de page de connexion"))
        verifier = random.token_urlsafe(64)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
        state, nonce = random.token_urlsafe(24), random.token_urlsafe(24)
        offline = "offline_access" in (metadata.get("scopes_supported") or [])
        query = {
            "response_type": "code",
            "client_id": self.config.idp_client_id,
            "redirect_uri": self.sign_in.redirect.uri,
            "scope": "openid offline_access" if offline else "openid",
            "state": state,
            "nonce": nonce,
            "code_challenge": challenge.decode().rstrip("="),
            "code_challenge_method": "S256",
        }
        endpoint = str(metadata["authorization_endpoint"])
        separator = "&" if urlsplit(endpoint).query else "?"
        await self.sign_in.open(f"{endpoint}{separator}{urlencode(query)}")
        answer = await self.sign_in.wait()
        if answer.state != state:
            raise SignInFailed(_("réponse du fournisseur d'identité inattendue (state)"))
        if answer.iss is not None and not _same(answer.iss, str(metadata["issuer"])):
            raise SignInFailed(_("réponse d'un autre fournisseur d'identité (iss)"))
        data = {
            "grant_type": "authorization_code",
            "code": answer.code,
            "redirect_uri": self.sign_in.redirect.uri,
            "client_id": self.config.idp_client_id,
            "code_verifier": verifier,
        }
        body = await self._token_request(metadata, data)
        token = str(body.get("id_token") or "")
        if not self._valid(token, nonce=nonce):
            raise SignInFailed(
                _("le fournisseur d'identité n'a pas rendu de jeton d'identité valide")
            )
        refresh = str(body.get("refresh_token") or "") or None
        await asyncio.to_thread(remember_id_token, self.vault, token, refresh)
        return token


async def build_auth(
    server_id: str,
    url: str,
    config: OAuthConfig | None,
    secrets: SecretStore,
    sign_in: BrowserSignIn | None,
    on_required: Callable[[], None] = lambda: None,
) -> httpx2.Auth | None:
    """The httpx auth of an enterprise sign-in, or None: nothing kept and nobody to ask (a
    401 then tells the person to sign in)."""
    assert config is not None, "enterprise sign-in without its settings"
    vault = OAuthVault(secrets, server_id)
    data = await asyncio.to_thread(vault.load)
    if sign_in is None and not data.get("tokens") and not data.get("idp"):
        return None
    secret = await asyncio.to_thread(vault.client_secret)
    if not secret:
        raise SignInFailed(
            _("le secret du client {client} manque dans le trousseau").format(
                client=config.client_id
            )
        )
    session = IdpSession(config, vault, sign_in, on_required)

    async def assertion(audience: str, resource: str) -> str:
        return await session.exchange(await session.id_token(), audience, resource)

    return IdentityAssertionOAuthProvider(
        server_url=url,
        storage=KeyringStorage(vault, config),
        client_id=config.client_id,
        client_secret=secret,
        issuer=config.issuer,
        assertion_provider=assertion,
        scope=config.scope or None,
        token_endpoint_auth_method="client_secret_basic",  # the one RFC 6749 makes mandatory
    )


async def authorization_server_of(url: str) -> str:
    """The authorization server an MCP server names in its protected resource metadata
    (RFC 9728: path-aware address first, then the root), for the person to confirm when they
    set the enterprise sign-in up. Raises SignInFailed when there is none."""
    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    path = parts.path.rstrip("/")
    candidates = [f"{origin}/.well-known/oauth-protected-resource{path}"] if path else []
    candidates.append(f"{origin}/.well-known/oauth-protected-resource")
    async with _http(url) as http:
        for candidate in candidates:
            response = await http.get(candidate)
            data = _json(response) if response.status_code == 200 else {}
            servers = data.get("authorization_servers")
            resource = str(data.get("resource", ""))
            expected = resource_url_from_server_url(url)
            if servers and check_resource_allowed(expected, resource):
                return str(servers[0])
    raise SignInFailed(_("{url} ne dit pas quel serveur d'autorisation le protège").format(url=url))
