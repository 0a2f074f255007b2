"""The *Aperçu* button: the workspace served on loopback while Playwright is on."""

from __future__ import annotations

import asyncio
import socket
import urllib.request
from pathlib import Path
from typing import Any

from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.services import Services
from tests.fakes.ollama_server import FakeOllama
from tests.ui.helpers import open_window, wait_until


def _settings(services: Services, *, workspace: Path | None, playwright: bool) -> None:
    settings = services.settings.load()
    settings.workspace = str(workspace) if workspace else ""
    settings.mcp_servers = {"playwright": {"enabled": playwright}}
    services.settings.save(settings)


def _read(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as page:
        return bytes(page.read())


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


async def test_preview_button_opens_the_workspace_in_the_browser(
    services: Services, qtbot: Any, ollama: FakeOllama, tmp_path: Path, opened_urls: list[str]
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<h1>Ma page</h1>")
    _settings(services, workspace=site, playwright=True)
    async with open_window(services, qtbot, ollama.url) as window:
        button = window.preview.widget
        assert button.isVisibleTo(window)
        assert button.text() == "Aperçu"
        button.click()
        await wait_until(lambda: opened_urls, within=10)
        url = opened_urls[0]
        assert url.startswith("http://127.0.0.1:")
        assert url in button.toolTip()
        # what the person's browser gets (the server has its own thread: a blocking read is fine)
        assert await asyncio.to_thread(_read, url) == b"<h1>Ma page</h1>"
        port = int(url.rsplit(":", 1)[1].strip("/"))
        # the model of the next turn reads the same address in the navigate tool
        window.runtime.make_agent(FixedApprover(allow=False))
        assert window.runtime.mcp.manager.preview_url == url

        window.workspace_picker.choose("")  # no folder: nothing to serve
        assert not button.isVisibleTo(window)
        assert not _listening(port)

        window.workspace_picker.choose(str(site))
        assert button.isVisibleTo(window)
        port = window.runtime.preview.preview.port  # type: ignore[union-attr]
    assert not _listening(port)  # closed with the window: the port is free


async def test_no_preview_while_playwright_is_off(
    services: Services, qtbot: Any, ollama: FakeOllama, tmp_path: Path
) -> None:
    _settings(services, workspace=tmp_path, playwright=False)
    async with open_window(services, qtbot, ollama.url) as window:
        assert not window.preview.widget.isVisibleTo(window)
        assert window.runtime.sync_preview() is None
