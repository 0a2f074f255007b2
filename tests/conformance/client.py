"""The client under test of `@modelcontextprotocol/conformance`: Loki's own MCP connection.

The suite starts a server per scenario and runs `python -m tests.conformance.client URL`
with MCP_CONFORMANCE_SCENARIO (and MCP_CONFORMANCE_CONTEXT: pre-registered credentials...).
Everything goes through what the app uses: the server is added with `McpService` (settings
file, keyring through the SecretStore port), launched with `build_launch`, connected with
`Connection`, signed in through core.mcp.oauth with the loopback redirect listener. Only the
person is played: `play_browser` follows the authorization URL as a browser would, which lands
on Loki's own listener.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx
import keyring

from loki_desktop.core.mcp import enterprise
from loki_desktop.core.mcp.client_side import ClientSide
from loki_desktop.core.mcp.config import OAuthConfig
from loki_desktop.core.mcp.connection import Connection
from loki_desktop.core.mcp.host import (
    ElicitationAnswer,
    ElicitationRequest,
    SamplingReport,
    SamplingRequest,
)
from loki_desktop.core.mcp.launch import build_launch
from loki_desktop.core.mcp.oauth_vault import OAuthVault
from loki_desktop.core.mcp.service import McpService
from loki_desktop.persistence.secrets import KeyringSecrets
from loki_desktop.persistence.settings_file import SettingsFile
from tests.fakes.memory_keyring import MemoryKeyring

SERVER_ID = "conformance"
# the client metadata document the suite's authorization servers know (they never fetch it)
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
TIMEOUT_S = 25.0  # the suite kills a client after 30 s

# What each scenario calls once connected (the auth scenarios: their first tool, no args).
CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "tools_call": ("add_numbers", {"a": 5, "b": 3}),
    "sse-retry": ("test_reconnection", {}),
    "elicitation-sep1034-client-defaults": ("test_client_elicitation_defaults", {}),
}


async def play_browser(url: str) -> None:
    """The person's browser: open the authorization page and follow its redirects, which end
    on Loki's loopback listener (the suite's authorization server approves at once)."""
    async with httpx.AsyncClient(follow_redirects=True, trust_env=False, timeout=10) as http:
        await http.get(url)


class AcceptingPerson:
    """The McpHost of a person who accepts every form as proposed. The scenarios ask for the
    schema's defaults (SEP-1034): the app's own elicitation handling fills the fields left
    out (core.mcp.callbacks, ElicitationForm.complete), as it does for the window and `ask`.
    Sampling is refused (no scenario asks for it)."""

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        return ElicitationAnswer("accept", {})

    async def approve_sampling(self, request: SamplingRequest) -> bool:
        return False

    def sampling_done(self, report: SamplingReport) -> None:
        pass


async def oauth_settings(
    scenario: str, url: str, context: dict[str, Any]
) -> tuple[OAuthConfig | None, str]:
    """The OAuth settings a person would type for this server, and the client secret (or
    private key) for the keyring."""
    client_id = str(context.get("client_id", ""))
    if "idp_issuer" in context:
        # an enterprise sign-in, set up as `mcp login --enterprise` does: the authorization
        # server is the one the server names, proposed once and then kept in the settings
        issuer = await enterprise.authorization_server_of(url)
        config = OAuthConfig(
            client_id=client_id,
            grant="enterprise",
            issuer=issuer,
            idp_issuer=str(context["idp_issuer"]),
            idp_client_id=str(context["idp_client_id"]),
        )
        return config, str(context.get("client_secret") or "")
    if scenario.startswith("auth/client-credentials"):
        secret = context.get("private_key_pem") or context.get("client_secret") or ""
        return OAuthConfig(client_id=client_id, grant="client_credentials"), str(secret)
    if client_id:
        return OAuthConfig(client_id=client_id), str(context.get("client_secret") or "")
    if scenario.startswith("auth/"):
        # as an organisation hosting a client metadata document for Loki would set it; the
        # servers that do not accept one get a dynamic registration
        return OAuthConfig(client_metadata_url=CLIENT_METADATA_URL), ""
    return None, ""


async def run(url: str, scenario: str, context: dict[str, Any], home: Path) -> int:
    secrets = KeyringSecrets()
    service = McpService(SettingsFile(home / "settings.json"), secrets)
    service.add_http(SERVER_ID, url, enabled=True)
    oauth, secret = await oauth_settings(scenario, url, context)
    if oauth is not None:
        service.set_oauth(SERVER_ID, oauth, client_secret=secret or None)
    if context.get("idp_id_token"):
        # The person's sign-in at their identity provider, as Loki keeps it once done: the
        # suite's IdP has no sign-in page, it hands the client an ID token instead.
        vault = OAuthVault(secrets, SERVER_ID)
        enterprise.remember_id_token(vault, str(context["idp_id_token"]))
    config = service.server(SERVER_ID).config
    launch = build_launch(config, secrets)
    client = ClientSide()
    client.host = AcceptingPerson()
    conn = Connection(
        launch,
        handshake_timeout=TIMEOUT_S,
        secrets=secrets,
        browser=play_browser,
        client=client,
    )
    conn.start()
    try:
        await conn.ready.wait()
        if conn.state != "connected":
            print(f"not connected: {conn.state}: {conn.message}", file=sys.stderr)
            return 1
        tool, args = CALLS.get(scenario, (conn.tools[0].name if conn.tools else "", {}))
        if tool:
            result = await conn.call(tool, args, TIMEOUT_S)
            print(f"{tool}: ok={result.ok} {result.text[:200]}", file=sys.stderr)
        return 0
    finally:
        await conn.aclose()
        await service.aclose()


def main() -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    keyring.set_keyring(MemoryKeyring())  # the test keyring: nothing on disk
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    with tempfile.TemporaryDirectory(prefix="loki-conformance-") as home:
        return asyncio.run(run(sys.argv[-1], scenario, context, Path(home)))


if __name__ == "__main__":
    sys.exit(main())
