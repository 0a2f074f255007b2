"""A workspace file asked for as file:// reaches the browser as its loopback preview URL
(Playwright blocks file://, and the next console read then says "Errors: 0" on about:blank)."""

from __future__ import annotations

from pathlib import Path

import pytest

from loki_desktop.core.mcp.browser import preview_instead_of_file
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.persistence.secrets import KeyringSecrets
from tests.core.mcp.conftest import stdio

PREVIEW = "http://127.0.0.1:8765/"


@pytest.mark.parametrize(
    ("relative", "served"),
    [
        ("index.html", PREVIEW + "index.html"),
        ("site/my page.html?x=1#top", PREVIEW + "site/my%20page.html?x=1#top"),
        ("../outside.html", None),  # out of the workspace: not served
    ],
)
def test_workspace_file_urls_become_preview_urls(
    tmp_path: Path, relative: str, served: str | None
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    url = "file://" + str(workspace) + "/" + relative.replace(" ", "%20")
    assert preview_instead_of_file(url, workspace, PREVIEW) == served


def test_other_urls_stay_as_they_are(tmp_path: Path) -> None:
    assert preview_instead_of_file("https://example.org/", tmp_path, PREVIEW) is None
    assert preview_instead_of_file("file://server/share/x.html", tmp_path, PREVIEW) is None


async def test_the_browser_is_sent_the_preview_url_and_the_model_told(
    secrets: KeyringSecrets, tmp_path: Path
) -> None:
    manager = McpManager({"web": stdio("web", "navigator")}, secrets, connect_wait=90)
    manager.set_roots([tmp_path])
    manager.preview_url = PREVIEW
    try:
        assert await manager.prepare() == []
        page = await manager.call(
            "mcp_web_browser_navigate", {"url": (tmp_path / "app.html").as_uri()}
        )
        other = await manager.call("mcp_web_browser_navigate", {"url": "https://example.org/"})
    finally:
        await manager.aclose()
    assert page.output.endswith(f"Page URL: {PREVIEW}app.html")  # what the browser got
    assert page.output.startswith(f"Note: {(tmp_path / 'app.html').as_uri()} was opened as")
    assert other.output == "Page URL: https://example.org/"
