"""A server started by npx that does not answer in time: the message says what is missing.

Real npm and npx; the registry is an address on loopback where nothing listens, so no test
leaves the machine.
"""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

from loki_desktop.core.mcp.catalogue import PLAYWRIGHT_MCP
from loki_desktop.core.mcp.config import ServerConfig
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.core.mcp.npx import npx_package
from loki_desktop.persistence.secrets import KeyringSecrets
from tests.conftest import REPO

LOCAL_PLAYWRIGHT = REPO / "tests" / "browser" / "node_modules" / "@playwright" / "mcp"
needs_npx = pytest.mark.skipif(
    shutil.which("npx") is None or shutil.which("npm") is None, reason="npm/npx not found"
)


def test_the_package_of_an_npx_command_line() -> None:
    assert npx_package("npx", ["--prefer-offline", "-y", PLAYWRIGHT_MCP, "--headless"]) == (
        PLAYWRIGHT_MCP
    )
    assert npx_package("/usr/bin/npx", ["--package=mcp-searxng", "mcp-searxng"]) == "mcp-searxng"
    assert npx_package("npx", ["-y"]) is None
    assert npx_package("uvx", ["mcp-server-time"]) is None
    assert npx_package("python", ["-m", "x"]) is None


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _npx_server(package: str) -> dict[str, ServerConfig]:
    return {"web": ServerConfig("web", "stdio", True, command=("npx", "-y", package))}


@needs_npx
@pytest.mark.slow
async def test_not_cached_and_registry_unreachable_is_said(
    secrets: KeyringSecrets, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # npm's own settings reach npx and the probes (an empty cache, a registry nobody serves)
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
    monkeypatch.setenv("npm_config_registry", f"http://127.0.0.1:{_closed_port()}/")
    manager = McpManager(
        _npx_server(PLAYWRIGHT_MCP), secrets, handshake_timeout=3.0, connect_wait=60.0
    )
    try:
        notices = await manager.prepare()
    finally:
        await manager.aclose()
    message = manager.status("web").message
    assert "n'est pas dans le cache de npm et le registre npm est injoignable" in message
    assert PLAYWRIGHT_MCP in message
    assert any(message in notice for notice in notices)
    assert "rien en" not in message


@needs_npx
@pytest.mark.slow
@pytest.mark.skipif(not LOCAL_PLAYWRIGHT.is_dir(), reason="make browser installs it")
async def test_cached_but_slow_is_said_as_still_starting(
    secrets: KeyringSecrets, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(LOCAL_PLAYWRIGHT.parents[2])  # npx finds the project's own install
    monkeypatch.setenv("npm_config_registry", f"http://127.0.0.1:{_closed_port()}/")
    # no Node program answers a handshake within 50 ms: npx is "still starting"
    manager = McpManager(
        _npx_server(PLAYWRIGHT_MCP), secrets, handshake_timeout=0.05, connect_wait=60.0
    )
    try:
        await manager.prepare()
    finally:
        await manager.aclose()
    message = manager.status("web").message
    assert "est dans le cache de npm, mais le serveur n'a pas répondu en 0.05 s" in message
