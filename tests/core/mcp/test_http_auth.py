"""An HTTP server that refuses the credentials (401) or their rights (403): told as such.

The server is a real MCP server behind the SDK's own bearer-token middleware
(tests/fakes/mcp_servers/auth_echo.py), reached by the real streamable-HTTP client.
"""

from __future__ import annotations

import pytest

from loki_desktop.core.mcp.config import ServerConfig
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.persistence.secrets import KeyringSecrets
from tests.fakes.mcp_servers.auth_echo import GOOD_TOKEN, LOW_TOKEN, REVOCABLE_TOKEN


def _web(url: str, token: str | None) -> ServerConfig:
    secrets = ("Authorization",) if token is not None else ()
    return ServerConfig("web", "http", True, label="Mon API", secrets=secrets, url=url)


@pytest.mark.parametrize(
    ("token", "status"),
    [("wrong-token-7c3a", "401"), (LOW_TOKEN, "403")],
)
async def test_a_refused_credential_is_told_as_an_authentication_failure(
    secrets: KeyringSecrets, auth_echo_http: str, token: str | None, status: str
) -> None:
    if token is not None:
        secrets.set("mcp/web/Authorization", f"Bearer {token}")
    config = _web(auth_echo_http, token)
    manager = McpManager({"web": config}, secrets, backoff=(60,), connect_wait=60)
    try:
        (notice,) = await manager.prepare()
        tested = await manager.test(config)
    finally:
        await manager.aclose()
    for text in (notice, manager.status("web").message, tested.message):
        assert "authentification" in text.lower(), text
        assert f"HTTP {status}" in text
        assert "« Mon API »" in text  # which server
        assert "Authorization" in text  # what to check: the header in its settings
        assert "loki-desktop mcp set web" in text
        assert "•" not in text  # the example of the command is not taken for a secret
        assert "-32603" not in text
        if token is not None:
            assert token not in text
    if status == "403":
        assert "Required scope: tools" in tested.message  # what the server said


async def test_a_server_refusing_a_request_without_credential_asks_for_sign_in(
    secrets: KeyringSecrets, auth_echo_http: str
) -> None:
    config = _web(auth_echo_http, None)
    manager = McpManager({"web": config}, secrets, backoff=(60,), connect_wait=60)
    try:
        (notice,) = await manager.prepare()
        tested = await manager.test(config)
    finally:
        await manager.aclose()
    assert manager.status("web").state == "signin"  # "connexion requise", not an error
    for text in (notice, manager.status("web").message, tested.message):
        assert "Connexion requise" in text, text
        assert "loki-desktop mcp login web" in text
        assert "indisponible" not in text
        assert "-32603" not in text


async def test_the_right_credential_connects(secrets: KeyringSecrets, auth_echo_http: str) -> None:
    secrets.set("mcp/web/Authorization", f"Bearer {GOOD_TOKEN}")
    manager = McpManager({"web": _web(auth_echo_http, GOOD_TOKEN)}, secrets, connect_wait=60)
    try:
        assert await manager.prepare() == []
        assert (await manager.call("mcp_web_echo", {"text": "ok"})).output == "echo: ok"
    finally:
        await manager.aclose()


async def test_a_key_revoked_during_the_session_fails_the_call_saying_why(
    secrets: KeyringSecrets, auth_echo_http: str
) -> None:
    secrets.set("mcp/web/Authorization", f"Bearer {REVOCABLE_TOKEN}")
    manager = McpManager({"web": _web(auth_echo_http, REVOCABLE_TOKEN)}, secrets, connect_wait=60)
    try:
        assert await manager.prepare() == []
        assert (await manager.call("mcp_web_revoke", {})).ok
        refused = await manager.call("mcp_web_echo", {"text": "encore"})
    finally:
        await manager.aclose()
    assert not refused.ok
    assert "refused the credentials" in refused.output
    assert "HTTP 401" in refused.output
    assert "-32603" not in refused.output + refused.summary
