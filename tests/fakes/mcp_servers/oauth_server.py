"""An MCP server that is its own OAuth 2.1 authorization server (the SDK's server auth).

    python tests/fakes/mcp_servers/oauth_server.py [--expires-in S] [--legacy]
                    [--claimed-issuer-path /P] [--demand-header NAME]   # prints "PORT n"

Built on the MCP SDK's `OAuthAuthorizationServerProvider` the way its auth examples are:
protected resource metadata, authorization server metadata, dynamic client registration,
PKCE authorization code, refresh tokens (rotated). The authorization page approves at once
and redirects to the client's loopback URI: a test plays the browser by following it. Access
tokens are announced with `expires_in` (--expires-in, default 3600 s) but accepted for an hour,
so a client that refreshes on time is told apart from one that does not without any race.
Each grant is printed on stdout ("GRANT authorization_code", "GRANT refresh_token"), each
dynamic registration as "REGISTER".

--legacy: the 2025-03-26 layout (that revision's authorization section): no protected resource
metadata, the authorization server metadata at the origin's /.well-known/oauth-authorization-
server. --claimed-issuer-path: that metadata names the issuer <origin>/P instead of the origin
(as the 0.1.16 conformance suite's 2025-03-26 mock does; RFC 8414 section 3.3 says a client must
then not use it). --demand-header: a signed-in request to /mcp without that header gets the
SDK server's own 400 shape (a JSON-RPC error, id null, code -32600, "Bad Request: ..."), as the
conformance suite's draft-revision servers answer an `initialize` without MCP-Protocol-Version.

Step-up: once its `raise_the_bar` tool is called, every request needs the "admin" scope too;
a token without it gets what the MCP authorization spec says a server sends then: HTTP 403
with `WWW-Authenticate: Bearer error="insufficient_scope", scope="mcp admin", ...`. Clients
are registered with both scopes (RFC 7591 lets the server choose), so they may ask for it.
"""

from __future__ import annotations

import argparse
import json
import secrets
import socket
import time
from typing import Any

import uvicorn
from mcp.server import MCPServer
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

SCOPE = "mcp"
ADMIN = "admin"
ACCEPTED_S = 3600
bar = {"raised": False}


class Provider:
    """Everything in memory: clients, codes, tokens."""

    def __init__(self, expires_in: int) -> None:
        self.expires_in = expires_in
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        client_info.scope = f"{SCOPE} {ADMIN}"
        print("REGISTER", flush=True)
        self.clients[client_info.client_id] = client_info

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        code = secrets.token_urlsafe(24)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + 300,
            client_id=str(client.client_id),
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        print("GRANT authorization_code", flush=True)
        return self._issue(str(client.client_id), authorization_code.scopes)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)  # rotated
        print("GRANT refresh_token", flush=True)
        return self._issue(str(client.client_id), scopes or refresh_token.scopes)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def _issue(self, client_id: str, scopes: list[str]) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        accepted_until = int(time.time()) + ACCEPTED_S
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=accepted_until
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes)
        return OAuthToken(
            access_token=access,
            refresh_token=refresh,
            expires_in=self.expires_in,
            scope=" ".join(scopes),
        )


class StepUp:
    """ASGI middleware: once the bar is raised, a token without "admin" gets a 403."""

    def __init__(self, app: Any, provider: Provider, base: str) -> None:
        self.app = app
        self.provider = provider
        self.base = base

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/mcp" and bar["raised"]:
            headers = dict(scope["headers"])
            token = headers.get(b"authorization", b"").decode().removeprefix("Bearer ")
            found = self.provider.access.get(token)
            if found is not None and ADMIN not in found.scopes:
                challenge = (
                    f'Bearer error="insufficient_scope", scope="{SCOPE} {ADMIN}", '
                    f'resource_metadata="{self.base}/.well-known/oauth-protected-resource/mcp"'
                )
                await send(
                    {
                        "type": "http.response.start",
                        "status": 403,
                        "headers": [(b"www-authenticate", challenge.encode())],
                    }
                )
                await send({"type": "http.response.body", "body": b""})
                return
        await self.app(scope, receive, send)


class DemandsHeader:
    """ASGI middleware: a signed-in POST to /mcp without `header` is a 400 Bad Request."""

    def __init__(self, app: Any, header: str) -> None:
        self.app = app
        self.header = header.lower().encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        headers = dict(scope.get("headers", [])) if scope["type"] == "http" else {}
        if (
            scope["type"] != "http"
            or scope["path"] != "/mcp"
            or b"authorization" not in headers
            or self.header in headers
        ):
            await self.app(scope, receive, send)
            return
        error = {"code": -32600, "message": f"Bad Request: Missing {self.header.decode()} header"}
        body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode()
        response_headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 400, "headers": response_headers})
        await send({"type": "http.response.body", "body": body})


class ClaimedIssuer:
    """ASGI middleware: the authorization server metadata names `issuer`, not the origin."""

    def __init__(self, app: Any, issuer: str) -> None:
        self.app = app
        self.issuer = issuer

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != "/.well-known/oauth-authorization-server":
            await self.app(scope, receive, send)
            return
        parts: list[bytes] = []

        async def keep(message: Any) -> None:
            if message["type"] == "http.response.body":
                parts.append(message.get("body", b""))

        await self.app(scope, receive, keep)
        metadata = json.loads(b"".join(parts)) | {"issuer": self.issuer}
        body = json.dumps(metadata).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def build(port: int, provider: Provider, legacy: bool = False) -> MCPServer:
    base = f"http://127.0.0.1:{port}"
    server = MCPServer(
        "oauth-echo",
        log_level="WARNING",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=base,
            resource_server_url=None if legacy else f"{base}/mcp",
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=[SCOPE, ADMIN], default_scopes=[SCOPE]
            ),
            required_scopes=[SCOPE],
        ),
    )

    @server.tool()
    def whoami() -> str:
        """Say that the caller is signed in."""
        return "signed in"

    @server.tool()
    def raise_the_bar() -> str:
        """From now on, every request needs the admin scope."""
        bar["raised"] = True
        return "raised"

    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--expires-in", type=int, default=3600)
    parser.add_argument("--legacy", action="store_true")
    parser.add_argument("--claimed-issuer-path", default="")
    parser.add_argument("--demand-header", default="")
    args = parser.parse_args()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    provider = Provider(args.expires_in)
    app = build(port, provider, args.legacy).streamable_http_app(host="127.0.0.1")
    if args.claimed_issuer_path:
        app = ClaimedIssuer(app, f"http://127.0.0.1:{port}{args.claimed_issuer_path}")
    if args.demand_header:
        app = DemandsHeader(app, args.demand_header)
    print(f"PORT {port}", flush=True)
    uvicorn.run(
        StepUp(app, provider, f"http://127.0.0.1:{port}"),
        host="127.0.0.1",
        port=port,
        log_level="warning",
    )


if __name__ == "__main__":
    main()
