"""The workspace preview: a real HTTP server on loopback, real files, real symbolic links."""

from __future__ import annotations

import http.client
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from loki_desktop.core.tools.preview import PreviewKeeper, WorkspacePreview


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    (root / "blog").mkdir(parents=True)
    (root / "index.html").write_text("<!doctype html><title>Accueil</title><p>Été</p>")
    (root / "style.css").write_text("body { color: red }")
    (root / "blog" / "index.html").write_text("<p>blog</p>")
    (root / "docs").mkdir()
    (root / "docs" / "notes.txt").write_text("notes")
    (root / ".env").write_text("API_KEY=hunter2")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]")
    (tmp_path / "outside.txt").write_text("secret outside")
    return root


@pytest.fixture
def preview(site: Path) -> Iterator[WorkspacePreview]:
    served = WorkspacePreview(site)
    try:
        yield served
    finally:
        served.close()


def get(
    preview: WorkspacePreview, path: str, *, host: str | None = None, method: str = "GET"
) -> tuple[int, dict[str, str], bytes]:
    """One raw request: `path` goes out as written (no client-side clean-up of `..`)."""
    connection = http.client.HTTPConnection("127.0.0.1", preview.port, timeout=10)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        connection.putheader("Host", host or f"127.0.0.1:{preview.port}")
        connection.endheaders()
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def test_pages_and_their_files_are_served(preview: WorkspacePreview) -> None:
    assert preview.url == f"http://127.0.0.1:{preview.port}/"
    status, headers, body = get(preview, "/")
    assert status == 200
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert headers["Cache-Control"] == "no-store"  # a fixed page shows its fix when reopened
    assert "Été".encode() in body
    status, headers, body = get(preview, "/style.css")
    assert (status, body) == (200, b"body { color: red }")
    assert headers["Content-Type"] == "text/css; charset=utf-8"
    assert "Access-Control-Allow-Origin" not in headers
    status, headers, body = get(preview, "/index.html", method="HEAD")
    assert (status, body) == (200, b"")
    assert int(headers["Content-Length"]) > 0


def test_a_missing_favicon_is_no_error(site: Path, preview: WorkspacePreview) -> None:
    # browsers ask for it by themselves: a 404 would be a console error the page did not cause
    assert get(preview, "/favicon.ico")[:3:2] == (204, b"")
    (site / "favicon.ico").write_bytes(b"\x00\x00\x01\x00")
    assert get(preview, "/favicon.ico")[:3:2] == (200, b"\x00\x00\x01\x00")


def test_folders_get_their_slash_then_their_index_or_a_listing(
    preview: WorkspacePreview,
) -> None:
    status, headers, _body = get(preview, "/blog")
    assert status == 301
    assert headers["Location"] == "/blog/"
    assert get(preview, "/blog/")[2] == b"<p>blog</p>"
    status, _headers, body = get(preview, "/docs/")
    assert status == 200
    assert b'href="notes.txt"' in body
    listing = get(preview, "/")[2]
    assert b".env" not in listing


@pytest.mark.parametrize(
    "path",
    [
        "/.env",
        "/.git/config",
        "/%2eenv",
        "/../outside.txt",
        "/%2e%2e/outside.txt",
        "/blog/../../outside.txt",
        "/blog/%2e%2e/%2e%2e/outside.txt",
        "/..%2foutside.txt",
        "/nothing.html",
        "/a%00b",
    ],
)
def test_hidden_missing_and_outside_paths_are_not_served(
    preview: WorkspacePreview, path: str
) -> None:
    status, _headers, body = get(preview, path)
    assert status == 404
    assert b"hunter2" not in body
    assert b"secret outside" not in body


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links need privileges there")
def test_a_link_out_of_the_workspace_is_refused(site: Path, preview: WorkspacePreview) -> None:
    (site / "escape.txt").symlink_to(site.parent / "outside.txt")
    (site / "out").symlink_to(site.parent)
    (site / "inside.css").symlink_to(site / "style.css")
    assert get(preview, "/escape.txt")[0] == 403
    assert get(preview, "/out/outside.txt")[0] == 403
    assert get(preview, "/inside.css")[2] == b"body { color: red }"  # a link inside is fine
    (site / "page.txt").symlink_to(site / ".env")  # but not one to a hidden file
    assert get(preview, "/page.txt")[0] == 404


def test_another_host_name_and_other_methods_are_refused(preview: WorkspacePreview) -> None:
    # a name of the attacker's that resolves to 127.0.0.1 (DNS rebinding) is not this host
    assert get(preview, "/", host=f"evil.example:{preview.port}")[0] == 403
    assert get(preview, "/", host=f"localhost:{preview.port}")[0] == 200
    assert get(preview, "/index.html", method="POST")[0] == 501
    assert get(preview, "/index.html", method="PUT")[0] == 501


def test_closing_frees_the_port(site: Path) -> None:
    served = WorkspacePreview(site)
    port = served.port
    assert get(served, "/")[0] == 200
    served.close()
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0
    with socket.socket() as again:  # free for another server (past the TIME_WAIT of the
        again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # request just closed)
        again.bind(("127.0.0.1", port))
        again.listen()


def test_the_keeper_follows_the_workspace(site: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    keeper = PreviewKeeper()
    try:
        url = keeper.follow(site)
        assert url is not None
        assert keeper.follow(site) == url  # the same folder: the same server
        moved = keeper.follow(other)
        assert moved is not None
        assert moved != url
        assert keeper.follow(None) is None
        assert keeper.url is None
        assert keeper.follow(tmp_path / "gone") is None
    finally:
        keeper.close()
