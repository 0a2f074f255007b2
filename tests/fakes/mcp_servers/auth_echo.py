"""An echo server behind the MCP SDK's own bearer-token check (streamable HTTP only).

    python tests/fakes/mcp_servers/auth_echo.py --http 0     # prints "PORT n"

The SDK's RequireAuthMiddleware answers as a real protected server does: HTTP 401 with
`WWW-Authenticate: Bearer error="invalid_token"` without a valid token, HTTP 403
`insufficient_scope` for a token without the "tools" scope. Tokens: GOOD_TOKEN has the scope,
LOW_TOKEN does not; REVOCABLE_TOKEN works until its `revoke` tool is called (a key revoked
in the middle of a session); any other token is refused.
"""

from __future__ import annotations

from mcp.server import MCPServer
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings

GOOD_TOKEN = "good-token-4f1c"
LOW_TOKEN = "low-scope-token-9d2e"
REVOCABLE_TOKEN = "revocable-token-2b7f"
revoked: set[str] = set()


class FixedTokens:
    """A TokenVerifier that knows two tokens."""

    async def verify_token(self, token: str) -> AccessToken | None:
        scopes = {GOOD_TOKEN: ["tools"], LOW_TOKEN: ["read"], REVOCABLE_TOKEN: ["tools"]}.get(token)
        if scopes is None or token in revoked:
            return None
        return AccessToken(token=token, client_id="loki-tests", scopes=scopes)


server = MCPServer(
    "auth-echo",
    log_level="WARNING",
    token_verifier=FixedTokens(),
    auth=AuthSettings(
        issuer_url="http://127.0.0.1:1/",  # never contacted: tokens are checked locally
        resource_server_url=None,
        required_scopes=["tools"],
    ),
)


@server.tool()
def echo(text: str) -> str:
    """Return the text, prefixed with 'echo: '."""
    return f"echo: {text}"


@server.tool()
def revoke() -> str:
    """Refuse REVOCABLE_TOKEN from now on."""
    revoked.add(REVOCABLE_TOKEN)
    return "revoked"


if __name__ == "__main__":
    # a sibling module, imported here: the tests import this file for its tokens
    from serve import serve

    serve(server)
