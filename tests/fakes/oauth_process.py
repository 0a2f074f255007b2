"""The OAuth servers of tests/fakes/mcp_servers as processes: their URLs, the grants they saw."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

from tests.fakes.mcp_servers import script


class OAuthServer:
    def __init__(
        self, expires_in: int = 3600, *, legacy: bool = False, claimed_issuer_path: str = ""
    ) -> None:
        """`legacy`: the 2025-03-26 layout (no protected resource metadata);
        `claimed_issuer_path`: its authorization server metadata names the issuer
        <origin><path> (see oauth_server.py)."""
        command = [sys.executable, script("oauth_server"), "--expires-in", str(expires_in)]
        if legacy:
            command.append("--legacy")
        if claimed_issuer_path:
            command += ["--claimed-issuer-path", claimed_issuer_path]
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        port = int(self.process.stdout.readline().split()[1])  # waits for the start
        _wait_for_port(port)
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
        command = [sys.executable, script("enterprise_server"), "--id-token-ttl", str(id_token_ttl)]
        if idp_secret:
            command += ["--idp-secret", idp_secret]
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        idp, auth, mcp = (int(word) for word in self.process.stdout.readline().split()[1:])
        for port in (idp, auth, mcp):
            _wait_for_port(port)
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


def _wait_for_port(port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on {port}")
