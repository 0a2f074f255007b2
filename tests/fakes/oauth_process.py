"""The OAuth servers of tests/fakes/mcp_servers as processes (their URLs, the grants they saw),
and the person's browser that signs in to them."""

from __future__ import annotations

import httpx

from tests.fakes.mcp_servers import start_http


class Browser:
    """The person's browser: follows the authorization page's redirects to the loopback."""

    def __init__(self) -> None:
        self.opened: list[str] = []

    async def __call__(self, url: str) -> None:
        self.opened.append(url)
        async with httpx.AsyncClient(follow_redirects=True, trust_env=False) as http:
            page = await http.get(url)
        assert "Connexion réussie" in page.text


class OAuthServer:
    def __init__(
        self,
        expires_in: int = 3600,
        *,
        legacy: bool = False,
        claimed_issuer_path: str = "",
        demand_header: str = "",
    ) -> None:
        """`legacy`: the 2025-03-26 layout (no protected resource metadata);
        `claimed_issuer_path`: its authorization server metadata names the issuer
        <origin><path>; `demand_header`: a signed-in request without it gets a 400 (see
        oauth_server.py)."""
        args = ["--expires-in", str(expires_in)]
        if legacy:
            args.append("--legacy")
        if claimed_issuer_path:
            args += ["--claimed-issuer-path", claimed_issuer_path]
        if demand_header:
            args += ["--demand-header", demand_header]
        self.process, (port,) = start_http("oauth_server", *args)
        self.url = f"http://127.0.0.1:{port}/mcp"

    def grants(self) -> list[str]:
        """Stop the server; the grants it saw ("authorization_code", "refresh_token"...)."""
        self.process.terminate()
        out, _err = self.process.communicate(timeout=10)
        return [line.split()[1] for line in out.splitlines() if line.startswith("GRANT")]

    def log(self) -> list[str]:
        """Stop the server; what it printed after its port (GRANT..., REGISTER)."""
        self.process.terminate()
        out, _err = self.process.communicate(timeout=10)
        return out.splitlines()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.communicate(timeout=10)


class EnterpriseServers:
    """tests/fakes/mcp_servers/enterprise_server.py: an identity provider, an authorization
    server and an MCP server; their addresses, and the grants they issued."""

    def __init__(self, id_token_ttl: int = 3600, idp_secret: str = "") -> None:
        args = ["--id-token-ttl", str(id_token_ttl)]
        if idp_secret:
            args += ["--idp-secret", idp_secret]
        self.process, (idp, auth, mcp) = start_http("enterprise_server", *args)
        self.idp = f"http://127.0.0.1:{idp}"
        self.auth_server = f"http://127.0.0.1:{auth}"
        self.url = f"http://127.0.0.1:{mcp}/mcp"

    def grants(self) -> list[str]:
        """Stop the servers; the grant types they issued tokens for, in order."""
        self.process.terminate()
        out, _err = self.process.communicate(timeout=10)
        return [line.split()[1] for line in out.splitlines() if line.startswith("GRANT")]

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.communicate(timeout=10)
