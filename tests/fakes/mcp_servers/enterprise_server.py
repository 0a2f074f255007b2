"""Enterprise-managed authorization (SEP-990) on loopback: an identity provider, the MCP
server's authorization server, and the MCP server, in one process on three ports.

    python tests/fakes/mcp_servers/enterprise_server.py [--id-token-ttl S] [--idp-secret S]
    # prints "PORTS idp as mcp", then one "GRANT <grant_type>" line per token issued

Built from the specs, not from memory of a product:
- the IdP is an OpenID provider (OpenID Connect Core and Discovery): its authorization page
  approves at once (PKCE S256 required) and redirects to the client's loopback URI with the
  code, the state and `iss` (RFC 9207); its token endpoint issues ES256 ID tokens (with the
  nonce, lifetime --id-token-ttl) and refresh tokens, and does the RFC 8693 token exchange of
  an ID token it issued for an ID-JAG (`typ` oauth-id-jag+jwt; claims iss, sub, aud = the
  requested audience, resource, client_id, jti, exp: the Identity Assertion Authorization
  Grant draft). With --idp-secret, Loki is a confidential client there: every token request
  must carry client_secret_basic (RFC 6749 §2.3.1);
- the authorization server publishes RFC 8414 metadata and takes the RFC 7523 jwt-bearer
  grant from a confidential client (client_secret_basic), checking the ID-JAG's signature
  (the IdP's key), typ, audience (its issuer), client_id and resource (the MCP server);
- the MCP server (the SDK's, with a token verifier) publishes its protected resource metadata
  and answers `whoami` with the subject the IdP signed in.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import secrets
import socket
import time
import uuid
from typing import Any
from urllib.parse import unquote, urlencode

import jwt
import uvicorn
from cryptography.hazmat.primitives.asymmetric import ec
from mcp.server import MCPServer
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

IDP_CLIENT = "loki-at-idp"
AS_CLIENT = "loki-at-as"
AS_SECRET = "as-secret-for-loki"
SUBJECT = "ada@example.com"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def error(code: str, status: int = 400) -> JSONResponse:
    print(f"REFUSED {code}", flush=True)
    return JSONResponse({"error": code}, status_code=status)


class IdentityProvider:
    def __init__(self, issuer: str, id_token_ttl: int, secret: str = "") -> None:
        self.issuer = issuer
        self.ttl = id_token_ttl
        self.secret = secret
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.codes: dict[str, dict[str, str]] = {}
        self.refresh: set[str] = set()

    def routes(self) -> list[Route]:
        return [
            Route("/.well-known/openid-configuration", self.metadata),
            Route("/authorize", self.authorize),
            Route("/token", self.token, methods=["POST"]),
        ]

    async def metadata(self, request: Request) -> Response:
        return JSONResponse(
            {
                "issuer": self.issuer,
                "authorization_endpoint": f"{self.issuer}/authorize",
                "token_endpoint": f"{self.issuer}/token",
                "scopes_supported": ["openid", "email", "offline_access"],
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token", TOKEN_EXCHANGE],
                "code_challenge_methods_supported": ["S256"],
            }
        )

    async def authorize(self, request: Request) -> Response:
        query = request.query_params
        if query.get("client_id") != IDP_CLIENT or query.get("code_challenge_method") != "S256":
            return error("invalid_request")
        if "openid" not in query.get("scope", "").split():
            return error("invalid_scope")
        code = secrets.token_urlsafe(16)
        self.codes[code] = {
            "challenge": query["code_challenge"],
            "nonce": query.get("nonce", ""),
            "redirect_uri": query["redirect_uri"],
        }
        back = {"code": code, "state": query.get("state", ""), "iss": self.issuer}
        return RedirectResponse(f"{query['redirect_uri']}?{urlencode(back)}", status_code=302)

    async def token(self, request: Request) -> Response:
        form = await request.form()
        grant = str(form.get("grant_type"))
        if self.client(request, form) != IDP_CLIENT:
            return error("invalid_client", 401)
        if grant == "authorization_code":
            found = self.codes.pop(str(form.get("code")), None)
            verifier = str(form.get("code_verifier", "")).encode()
            challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).rstrip(b"=")
            if found is None or challenge.decode() != found["challenge"]:
                return error("invalid_grant")
            if form.get("redirect_uri") != found["redirect_uri"]:
                return error("invalid_grant")
            return self.signed_in(grant, found["nonce"])
        if grant == "refresh_token":
            if str(form.get("refresh_token")) not in self.refresh:
                return error("invalid_grant")
            self.refresh.discard(str(form.get("refresh_token")))  # rotated
            return self.signed_in(grant, "")
        if grant == TOKEN_EXCHANGE:
            return self.exchange(form)
        return error("unsupported_grant_type")

    def client(self, request: Request, form: Any) -> str:
        """The authenticated client: Basic credentials when a secret is set, else client_id."""
        if not self.secret:
            return str(form.get("client_id", ""))
        header = request.headers.get("authorization", "")
        if not header.startswith("Basic "):
            return ""
        pair = base64.b64decode(header.removeprefix("Basic ")).decode()
        client, _colon, secret = pair.partition(":")
        return unquote(client) if unquote(secret) == self.secret else ""

    def signed_in(self, grant: str, nonce: str) -> Response:
        now = int(time.time())
        claims: dict[str, Any] = {"iss": self.issuer, "sub": SUBJECT, "aud": IDP_CLIENT}
        claims |= {"iat": now, "exp": now + self.ttl, "email": SUBJECT}
        if nonce:
            claims["nonce"] = nonce
        refresh = secrets.token_urlsafe(16)
        self.refresh.add(refresh)
        print(f"GRANT {grant}", flush=True)
        return JSONResponse(
            {
                "access_token": secrets.token_urlsafe(16),
                "token_type": "Bearer",
                "expires_in": self.ttl,
                "id_token": jwt.encode(claims, self.key, algorithm="ES256"),
                "refresh_token": refresh,
            }
        )

    def exchange(self, form: Any) -> Response:
        if form.get("subject_token_type") != ID_TOKEN_TYPE:
            return error("invalid_request")
        if form.get("requested_token_type") != ID_JAG_TYPE:
            return error("invalid_request")
        if not form.get("audience") or not form.get("resource"):
            return error("invalid_request")
        try:
            identity = jwt.decode(
                str(form.get("subject_token")),
                self.key.public_key(),
                algorithms=["ES256"],
                audience=IDP_CLIENT,
                issuer=self.issuer,
            )
        except jwt.PyJWTError:
            return error("invalid_grant")
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "sub": identity["sub"],
            "aud": str(form.get("audience")),
            "resource": str(form.get("resource")),
            "client_id": AS_CLIENT,
            "jti": str(uuid.uuid4()),
            "iat": now,
            "exp": now + 300,
        }
        grant = jwt.encode(claims, self.key, algorithm="ES256", headers={"typ": "oauth-id-jag+jwt"})
        print(f"GRANT {TOKEN_EXCHANGE}", flush=True)
        return JSONResponse(
            {"access_token": grant, "issued_token_type": ID_JAG_TYPE, "token_type": "N_A"}
        )


class AuthorizationServer:
    def __init__(self, issuer: str, idp: IdentityProvider, resource: str) -> None:
        self.issuer = issuer
        self.idp = idp
        self.resource = resource
        self.tokens: dict[str, str] = {}  # access token -> subject

    def routes(self) -> list[Route]:
        return [
            Route("/.well-known/oauth-authorization-server", self.metadata),
            Route("/token", self.token, methods=["POST"]),
        ]

    async def metadata(self, request: Request) -> Response:
        return JSONResponse(
            {
                "issuer": self.issuer,
                "authorization_endpoint": f"{self.issuer}/authorize",
                "token_endpoint": f"{self.issuer}/token",
                "response_types_supported": ["code"],
                "grant_types_supported": [JWT_BEARER],
                "token_endpoint_auth_methods_supported": ["client_secret_basic"],
            }
        )

    async def token(self, request: Request) -> Response:
        expected = base64.b64encode(f"{AS_CLIENT}:{AS_SECRET}".encode()).decode()
        if request.headers.get("authorization") != f"Basic {expected}":
            return error("invalid_client", 401)
        form = await request.form()
        if form.get("grant_type") != JWT_BEARER:
            return error("unsupported_grant_type")
        assertion = str(form.get("assertion", ""))
        try:
            if jwt.get_unverified_header(assertion).get("typ") != "oauth-id-jag+jwt":
                return error("invalid_grant")
            claims = jwt.decode(
                assertion,
                self.idp.key.public_key(),
                algorithms=["ES256"],
                audience=self.issuer,
                issuer=self.idp.issuer,
            )
        except jwt.PyJWTError:
            return error("invalid_grant")
        if claims.get("client_id") != AS_CLIENT or claims.get("resource") != self.resource:
            return error("invalid_grant")
        access = secrets.token_urlsafe(24)
        self.tokens[access] = str(claims["sub"])
        print(f"GRANT {JWT_BEARER}", flush=True)
        return JSONResponse({"access_token": access, "token_type": "Bearer", "expires_in": 3600})


class Verifier:
    """The MCP server's side: a token the authorization server issued (same process)."""

    def __init__(self, auth_server: AuthorizationServer) -> None:
        self.auth_server = auth_server

    async def verify_token(self, token: str) -> AccessToken | None:
        subject = self.auth_server.tokens.get(token)
        if subject is None:
            return None
        return AccessToken(token=token, client_id=subject, scopes=[], expires_at=None)


def mcp_app(port: int, auth_server: AuthorizationServer) -> Any:
    base = f"http://127.0.0.1:{port}"
    server = MCPServer(
        "enterprise-echo",
        log_level="WARNING",
        token_verifier=Verifier(auth_server),
        auth=AuthSettings(issuer_url=auth_server.issuer, resource_server_url=f"{base}/mcp"),
    )

    @server.tool()
    def whoami() -> str:
        """Say who the caller is, as their identity provider signed them in."""
        token = get_access_token()
        return f"signed in as {token.client_id}" if token is not None else "nobody"

    return server.streamable_http_app(host="127.0.0.1")


async def serve(apps: list[tuple[Any, int]]) -> None:
    servers = [
        uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        for app, port in apps
    ]
    await asyncio.gather(*(server.serve() for server in servers))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--id-token-ttl", type=int, default=3600)
    parser.add_argument("--idp-secret", default="")
    args = parser.parse_args()
    idp_port, as_port, mcp_port = free_port(), free_port(), free_port()
    idp = IdentityProvider(f"http://127.0.0.1:{idp_port}", args.id_token_ttl, args.idp_secret)
    resource = f"http://127.0.0.1:{mcp_port}/mcp"
    auth_server = AuthorizationServer(f"http://127.0.0.1:{as_port}", idp, resource)
    print(f"PORTS {idp_port} {as_port} {mcp_port}", flush=True)
    asyncio.run(
        serve(
            [
                (Starlette(routes=idp.routes()), idp_port),
                (Starlette(routes=auth_server.routes()), as_port),
                (mcp_app(mcp_port, auth_server), mcp_port),
            ]
        )
    )


if __name__ == "__main__":
    main()
