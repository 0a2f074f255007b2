"""tests/fakes/mcp_servers/oauth_server.py as a process: its URL, and the grants it saw."""

from __future__ import annotations

from tests.fakes.mcp_servers import start_http


class OAuthServer:
    def __init__(self, expires_in: int = 3600) -> None:
        self.process, port = start_http("oauth_server", "--expires-in", str(expires_in))
        self.url = f"http://127.0.0.1:{port}/mcp"

    def grants(self) -> list[str]:
        """Stop the server; the grants it saw ("authorization_code", "refresh_token"...)."""
        self.process.terminate()
        out, _err = self.process.communicate(timeout=10)
        return [line.split()[1] for line in out.splitlines() if line.startswith("GRANT")]

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.communicate(timeout=10)
