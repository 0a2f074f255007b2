"""The real mcp-server-fetch (our dependency) reading a page served on loopback."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import readabilipy

from loki_desktop.core.mcp.catalogue import ALLOW_LOCAL, fetch_command
from loki_desktop.core.mcp.config import ServerConfig
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.persistence.secrets import KeyringSecrets
from tests.fakes.web_page import serve_page

# Importing mcp-server-fetch alone takes ~4 s on a loaded machine: these tests wait for the
# server to connect (the 10 s a message waits is not what they test).
SLOW_MACHINE_S = 60.0

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
    config = ServerConfig("fetch", "stdio", True, command=command)
    manager = McpManager({"fetch": config}, secrets, connect_wait=SLOW_MACHINE_S)
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
    config = ServerConfig("fetch", "catalogue", True)
    manager = McpManager({"fetch": config}, secrets, connect_wait=SLOW_MACHINE_S)
    try:
        await manager.prepare()
        outcome = await manager.call("mcp_fetch_fetch", {"url": page_url})
        assert not outcome.ok
        assert "Prenez six pommes" not in outcome.output
    finally:
        await manager.aclose()


async def test_allowing_local_addresses_on_the_card_lets_fetch_read_loopback(
    page_url: str, secrets: KeyringSecrets
) -> None:
    # the card's check box stores ALLOW_LOCAL=1 (no robots.txt flag: a 404 robots.txt allows)
    config = ServerConfig("fetch", "catalogue", True, params={ALLOW_LOCAL: "1"})
    manager = McpManager({"fetch": config}, secrets, connect_wait=SLOW_MACHINE_S)
    try:
        assert await manager.prepare() == []
        outcome = await manager.call("mcp_fetch_fetch", {"url": page_url})
        assert outcome.ok, outcome.output
        assert "Prenez six pommes reinettes" in outcome.output
    finally:
        await manager.aclose()


def _recorder(folder: Path, name: str, then: str) -> None:
    """`name` on PATH: notes each run (its arguments) in `name`.log, then does `then`."""
    log = folder / f"{name}.log"
    program = folder / name
    program.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\n{then}\n')
    program.chmod(0o755)


@pytest.mark.skipif(sys.platform == "win32", reason="shell scripts stand for node and npm")
async def test_a_fetch_runs_no_npm_and_leaves_site_packages_alone(
    page_url: str, secrets: KeyringSecrets, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # readabilipy's Node path runs `node -v`, then `npm install` inside site-packages when its
    # node_modules is missing: a real node (when there is one) and an npm that installs nothing
    # come first on PATH and note every run
    node = shutil.which("node")
    _recorder(tmp_path, "node", f'exec "{node}" "$@"' if node else "exit 127")
    _recorder(tmp_path, "npm", "exit 1")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    javascript = Path(readabilipy.__file__).parent / "javascript"
    before = sorted(p.name for p in javascript.iterdir())
    if "node_modules" in before:
        pytest.skip(
            f"{javascript / 'node_modules'} exists (an earlier Fetch ran npm install there): "
            "readabilipy would not run npm anyway, so this environment cannot show the fix"
        )
    config = ServerConfig("fetch", "catalogue", True, params={ALLOW_LOCAL: "1"})
    manager = McpManager({"fetch": config}, secrets, connect_wait=SLOW_MACHINE_S)
    try:
        await manager.prepare()
        outcome = await manager.call("mcp_fetch_fetch", {"url": page_url})
        assert outcome.ok, outcome.output
        assert "Prenez six pommes reinettes" in outcome.output
    finally:
        await manager.aclose()
    assert not (tmp_path / "npm.log").exists()
    assert not (tmp_path / "node.log").exists()
    assert sorted(p.name for p in javascript.iterdir()) == before
