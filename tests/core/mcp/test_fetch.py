"""The real mcp-server-fetch (our dependency) reading a page served on loopback."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from loki_desktop.core.mcp.catalogue import fetch_command
from loki_desktop.core.mcp.config import ServerConfig
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.persistence.secrets import KeyringSecrets
from tests.fakes.web_page import serve_page

PAGE = """<!doctype html><html><head><title>Recette</title></head><body>
<article><h1>Tarte aux pommes</h1><p>Prenez six pommes reinettes et une pâte brisée.</p>
<p>Cuire quarante minutes à 180 degrés.</p></article></body></html>""".encode()


@pytest.fixture
def page_url() -> Iterator[str]:
    with serve_page(PAGE, "recette.html") as url:
        yield url


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
