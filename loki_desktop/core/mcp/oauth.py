"""OAuth 2.1 for remote MCP servers, through the SDK's client auth (`OAuthClientProvider`).

The SDK does the protocol: protected resource and authorization server metadata discovery,
dynamic client registration, PKCE, scope selection and step-up (403 insufficient_scope),
refresh. Loki adds where things live and who is asked:
- tokens, the registered client and the client secret live in the keyring (`KeyringStorage`
  over core.mcp.oauth_vault), with the expiry and the server metadata so that a restarted app
  refreshes an expired token instead of asking the person again;
- the authorization page opens in the system browser (`Browser`, given by the window or the
  CLI) and comes back to a loopback listener (core.mcp.oauth_redirect). Without a browser
  (a connection started in the background) a sign-in is never started: the connection ends
  in the "signin" state and the person starts it (the card's *Se connecter*, `mcp login`);
- `client_credentials` (a machine account: client id + secret or private key) needs no person.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import warnings
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

import httpx2
from mcp.client.auth import (
    OAuthClientProvider,
    OAuthFlowError,
    OAuthRegistrationError,
    OAuthTokenError,
    TokenStorage,
)
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)
from mcp.shared.exceptions import MCPDeprecationWarning
from pydantic import BaseModel, ValidationError

from loki_desktop import __version__
from loki_desktop.core.mcp.config import OAuthConfig
from loki_desktop.core.mcp.oauth_redirect import SIGN_IN_TIMEOUT_S as SIGN_IN_TIMEOUT_S
from loki_desktop.core.mcp.oauth_redirect import Browser, LoopbackRedirect
from loki_desktop.core.mcp.oauth_vault import OAuthVault
from loki_desktop.core.ports import SecretStore

M = TypeVar("M", bound=BaseModel)
CLIENT_NAME = "Loki Desktop"


class SignInRequired(Exception):
    """The server wants the person to sign in, and this connection may not ask them."""


class SignInFailed(Exception):
    """The authorization server refused (access_denied...) or nobody came back in time."""


OAUTH_ERRORS = (SignInFailed, OAuthFlowError, OAuthRegistrationError, OAuthTokenError)


class KeyringStorage(TokenStorage):
    """The SDK's TokenStorage over the keyring (each call in a thread: it may block)."""

    def __init__(self, vault: OAuthVault, config: OAuthConfig | None) -> None:
        self.vault = vault
        self.config = config or OAuthConfig()
        self.provider: OAuthClientProvider | None = None  # set once built: its metadata is saved

    async def get_tokens(self) -> OAuthToken | None:
        data = await asyncio.to_thread(self.vault.load)
        return _parsed(OAuthToken, data.get("tokens"))

    async def set_tokens(self, tokens: OAuthToken) -> None:
        expires_at = time.time() + tokens.expires_in if tokens.expires_in is not None else None
        context = self.provider.context if self.provider is not None else None
        parts: dict[str, Any] = {"tokens": tokens.model_dump(mode="json"), "expires_at": expires_at}
        if context is not None and context.oauth_metadata is not None:
            parts["metadata"] = context.oauth_metadata.model_dump(mode="json", exclude_none=True)
        if context is not None and context.protected_resource_metadata is not None:
            prm = context.protected_resource_metadata
            parts["resource"] = prm.model_dump(mode="json", exclude_none=True)
        await asyncio.to_thread(lambda: self.vault.update(**parts))

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        if self.config.client_id:  # registered beforehand by the person
            secret = await asyncio.to_thread(self.vault.client_secret)
            return OAuthClientInformationFull(
                client_id=self.config.client_id,
                client_secret=secret,
                token_endpoint_auth_method="client_secret_basic" if secret else "none",
                redirect_uris=None,
            )
        data = await asyncio.to_thread(self.vault.load)
        return _parsed(OAuthClientInformationFull, data.get("client"))

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        if self.config.client_id:
            return  # the person's own registration is settings + keyring already
        client = client_info.model_dump(mode="json", exclude_none=True)
        await asyncio.to_thread(lambda: self.vault.update(client=client))


class BrowserSignIn:
    """The authorization-code leg with a person: open the page, wait for the loopback."""

    def __init__(self, browser: Browser, redirect: LoopbackRedirect, timeout_s: float) -> None:
        self.browser = browser
        self.redirect = redirect
        self.timeout_s = timeout_s

    async def open(self, url: str) -> None:
        self.redirect.fresh()
        await self.browser(url)

    async def wait(self) -> AuthorizationCodeResult:
        try:
            answer = await asyncio.wait_for(self.redirect.result(), self.timeout_s)
        except TimeoutError:
            raise SignInFailed(f"no answer within {self.timeout_s:g} s") from None
        if not answer.code:
            raise SignInFailed(answer.error_description or answer.error or "no code")
        return AuthorizationCodeResult(code=answer.code, state=answer.state, iss=answer.iss)


async def signed_in(server_id: str, secrets: SecretStore) -> bool:
    return await asyncio.to_thread(OAuthVault(secrets, server_id).signed_in)


async def loopback_for(server_id: str, secrets: SecretStore) -> LoopbackRedirect:
    """A started listener, on the port of the redirect URI registered last time if it is
    free (a dynamically registered client is bound to its redirect URI), else on a new port,
    the old registration then dropped so that the SDK registers again."""
    vault = OAuthVault(secrets, server_id)
    data = await asyncio.to_thread(vault.load)
    client = data.get("client") if isinstance(data.get("client"), dict) else {}
    uris = client.get("redirect_uris") or [""] if client else [""]
    port = urlsplit(str(uris[0])).port or 0
    if port:
        with contextlib.suppress(OSError):
            listener = LoopbackRedirect(port)
            await listener.start()
            return listener
    if client:
        await asyncio.to_thread(lambda: vault.update(client=None))
    listener = LoopbackRedirect()
    await listener.start()
    return listener


async def build_auth(
    server_id: str,
    url: str,
    config: OAuthConfig | None,
    secrets: SecretStore,
    sign_in: BrowserSignIn | None,
    on_required: Callable[[], None] = lambda: None,
) -> httpx2.Auth | None:
    """The httpx auth for one connection, or None when the server gets no OAuth from Loki
    (nothing stored, nobody to ask: a 401 then tells the person to sign in)."""
    vault = OAuthVault(secrets, server_id)
    config = config or OAuthConfig()
    storage = KeyringStorage(vault, config)
    if config.grant == "client_credentials":
        return await _machine_auth(url, config, vault, storage)
    data = await asyncio.to_thread(vault.load)
    if sign_in is None and not data.get("tokens"):
        return None
    redirect_uri = sign_in.redirect.uri if sign_in is not None else "http://127.0.0.1/callback"

    async def refuse(_url: str) -> None:
        on_required()
        raise SignInRequired()

    async def never() -> AuthorizationCodeResult:
        on_required()
        raise SignInRequired()

    scope = config.scope or None
    provider = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name=CLIENT_NAME,
            software_id="loki-desktop",
            software_version=__version__,
            redirect_uris=[redirect_uri],  # type: ignore[list-item]  # pydantic parses it
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
            scope=scope,
        ),
        storage=storage,
        redirect_handler=sign_in.open if sign_in is not None else refuse,
        callback_handler=sign_in.wait if sign_in is not None else never,
        client_metadata_url=config.client_metadata_url or None,
    )
    storage.provider = provider
    _restore(provider, data)
    return provider


def _restore(provider: OAuthClientProvider, data: dict[str, Any]) -> None:
    """What the SDK keeps in memory only: when the token expires (so an expired one is
    refreshed, not sent) and where the token endpoint is (so the refresh goes there)."""
    expires_at = data.get("expires_at")
    if isinstance(expires_at, int | float):
        provider.context.token_expiry_time = float(expires_at)
    metadata = _parsed(OAuthMetadata, data.get("metadata"))
    if metadata is not None:
        provider.context.oauth_metadata = metadata
        provider.context.auth_server_url = str(metadata.issuer)
    resource = _parsed(ProtectedResourceMetadata, data.get("resource"))
    if resource is not None:
        provider.context.protected_resource_metadata = resource


async def _machine_auth(
    url: str, config: OAuthConfig, vault: OAuthVault, storage: KeyringStorage
) -> httpx2.Auth:
    secret = await asyncio.to_thread(vault.client_secret) or ""
    scope = config.scope or None
    # No issuer is configured: the server's discovery names the authorization server, as for
    # the browser sign-in. The SDK warns that 3.0 will want one.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        if secret.lstrip().startswith("-----BEGIN"):  # a private key: private_key_jwt
            assertion = SignedJWTParameters(
                issuer=config.client_id,
                subject=config.client_id,
                signing_algorithm=_algorithm(secret),
                signing_key=secret,
            ).create_assertion_provider()
            return PrivateKeyJWTOAuthProvider(
                url, storage, config.client_id, assertion, scope=scope
            )
        return ClientCredentialsOAuthProvider(url, storage, config.client_id, secret, scope=scope)


def _algorithm(pem: str) -> str:
    """RS256 for an RSA key, ES256 for an elliptic-curve one (what servers accept most)."""
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    key = load_pem_private_key(pem.encode(), password=None)
    return "RS256" if isinstance(key, rsa.RSAPrivateKey) else "ES256"


def _parsed(model: type[M], value: Any) -> M | None:
    if not isinstance(value, dict):
        return None
    try:
        return model.model_validate(value)
    except ValidationError:
        return None
