"""The real mcp-server-fetch (our dependency) reading a page served on loopback."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from loki_desktop.core.mcp.catalogue import fetch_command
from loki_desktop.core.mcp.config import ServerConfig
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.persistence.secrets import KeyringSecrets

PAGE = """<!doctype html><html><head><title>Recette</title></head><body>
<article><h1>Tarte aux pommes</h1><p>Prenez six pommes reinettes et une pâte brisée.</p>
<p>Cuire quarante minutes à 180 degrés.</p></article></body></html>""".encode()


class _Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def page_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/recette.html"
    server.shutdown()
    server.server_close()


async def test_fetch_reads_a_loopback_page(page_url: str, secrets: KeyringSecrets) -> None:
    # The catalogue's fetch refuses private addresses and honours robots.txt (a model must not
    # be steered into the user's network); reading a loopback page needs both flags.
    command = (*fetch_command(), "--allow-private-ips", "--ignore-robots-txt")
    manager = McpManager({"fetch": ServerConfig("fetch", "stdio", True, command=command)}, secrets)
    try:
        assert await manager.prepare() == []
        assert manager.owns("mcp_fetch_fetch")
        outcome = await manager.call("mcp_fetch_fetch", {"url": page_url})
        assert outcome.ok, outcome.output
        assert "Prenez six pommes reinettes" in outcome.output
        assert "<p>" not in outcome.output  # simplified to Markdown
    finally:
        await manager.aclose()


async def test_catalogue_fetch_refuses_loopback(page_url: str, secrets: KeyringSecrets) -> None:
    manager = McpManager({"fetch": ServerConfig("fetch", "catalogue", True)}, secrets)
    try:
        await manager.prepare()
        outcome = await manager.call("mcp_fetch_fetch", {"url": page_url})
        assert not outcome.ok
        assert "Prenez six pommes" not in outcome.output
    finally:
        await manager.aclose()
