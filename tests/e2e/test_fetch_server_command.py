"""The hidden `mcp-fetch-server` sub-command is a working fetch MCP server (the bundle's way in)."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from loki_desktop import cli
from loki_desktop.cli import fetch_server
from loki_desktop.core.mcp.catalogue import fetch_command
from tests.fakes.web_page import serve_page

PAGE = (
    b"<html><head><title>Notes</title></head><body><article><h1>Recette du pain</h1>"
    b"<p>Farine, eau, sel et levain : laissez pousser une nuit.</p></article></body></html>"
)


@pytest.fixture
def page_url() -> Iterator[str]:
    with serve_page(PAGE, "pain.html") as url:
        yield url


def test_the_sub_command_is_hidden_from_help() -> None:
    assert "mcp-fetch-server" not in cli.build_parser().format_help()


def test_a_bundle_starts_fetch_through_the_sub_command(monkeypatch: pytest.MonkeyPatch) -> None:
    # PyInstaller sets sys.frozen; sys.executable is then the app, not a Python.
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert fetch_command() == [sys.executable, fetch_server.COMMAND]
    assert cli.build_parser().parse_args([fetch_server.COMMAND]).run is fetch_server.run


@pytest.mark.slow
async def test_sub_command_serves_fetch_over_stdio(page_url: str, loki_home: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "loki_desktop",
            "mcp-fetch-server",
            "--allow-private-ips",
            "--ignore-robots-txt",
        ],
        env={**os.environ, "LOKI_HOME": str(loki_home)},
    )
    with open(os.devnull, "w") as errlog:  # noqa: ASYNC230 - opened once, before any I/O
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await asyncio.wait_for(session.initialize(), 30)
            tools = await asyncio.wait_for(session.list_tools(), 30)
            assert [tool.name for tool in tools.tools] == ["fetch"]
            result = await asyncio.wait_for(session.call_tool("fetch", {"url": page_url}), 30)
    assert not result.is_error
    text = " ".join(getattr(block, "text", "") for block in result.content)
    assert "levain" in text
