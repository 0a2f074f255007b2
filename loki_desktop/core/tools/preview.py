"""The workspace served read-only on a loopback port, so a browser can open the pages written.

Playwright's MCP server refuses `file://` (its way around opens the whole disk), and the
person wants to see the page too. Only GET and HEAD; every path is walked by the workspace
jail (core.tools.jail: no link out, no `..` out, not `.git`), and the preview is stricter
still: no hidden file or folder (`.env`, `.ssh/`...), since a web page has no use for them.
A request whose Host is not this loopback address and port is refused, so a web page the
person visits cannot reach it through a name that resolves to 127.0.0.1 (DNS rebinding); no
CORS header is sent, so another origin's script cannot read what it serves.

The standard library's threaded HTTP server runs in a thread of its own: requests are
served whatever the event loop does (the window's, or `ask`'s), with no new dependency,
and the jail is the same code the file tools use. `close()` stops it and frees the port.
"""

from __future__ import annotations

import html
import logging
import mimetypes
import os
import threading
import urllib.parse
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from loki_desktop.core.tools.jail import JailError, Workspace

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
CHUNK = 1 << 16
INDEX = "index.html"
FAVICON = "favicon.ico"
# Text files as the agent writes them: UTF-8 (a <meta charset> would come too late for a script)
TEXT_TYPES = ("text/", "application/javascript", "application/json", "image/svg+xml")


class WorkspacePreview:
    """One folder served at `url` until `close()`."""

    def __init__(self, root: Path) -> None:
        self.workspace = Workspace(root)
        self.root = self.workspace.root
        self._server = _Server((HOST, 0), _Handler)
        self._server.workspace = self.workspace
        self.port = int(self._server.server_address[1])
        self._server.hosts = frozenset({f"{HOST}:{self.port}", f"localhost:{self.port}"})
        self.url = f"http://{HOST}:{self.port}/"
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.2},
            name="workspace-preview",
            daemon=True,
        )
        self._thread.start()

    def close(self) -> None:
        """Stop serving and free the port (waits for the requests under way)."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


class PreviewKeeper:
    """The preview of the current workspace: started, moved or stopped as asked."""

    def __init__(self) -> None:
        self.preview: WorkspacePreview | None = None

    @property
    def url(self) -> str | None:
        return self.preview.url if self.preview is not None else None

    def follow(self, folder: Path | None) -> str | None:
        """Serve `folder` (None: serve nothing); its URL. A folder that cannot be opened
        is not served."""
        wanted = _resolved(folder)
        if self.preview is not None and self.preview.root == wanted:
            return self.preview.url
        self.close()
        if wanted is None:
            return None
        try:
            self.preview = WorkspacePreview(wanted)
        except OSError as exc:
            log.warning("the workspace preview of %s could not start: %s", wanted, exc)
            return None
        return self.preview.url

    def close(self) -> None:
        preview, self.preview = self.preview, None
        if preview is not None:
            preview.close()


def _resolved(folder: Path | None) -> Path | None:
    if folder is None:
        return None
    try:
        return folder.resolve(strict=True)
    except OSError:
        return None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    workspace: Workspace
    hosts: frozenset[str] = frozenset()

    def handle_error(self, request: Any, client_address: Any) -> None:
        log.debug("workspace preview: a request failed", exc_info=True)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "LokiPreview"
    sys_version = ""

    def do_GET(self) -> None:
        self._answer(body=True)

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("workspace preview: " + format, *args)

    def _answer(self, *, body: bool) -> None:
        if self.headers.get("Host", "") not in self.server.hosts:
            self._refuse(HTTPStatus.FORBIDDEN, body=body)
            return
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        parts = [part for part in path.split("/") if part]
        if "\x00" in path or "\\" in path or _hidden("/".join(parts)):
            self._refuse(HTTPStatus.NOT_FOUND, body=body)  # hidden, `..`, or not a URL path
            return
        rel = "/".join(parts) or "."
        try:
            self._serve(rel, folder_url=path.endswith("/") or not parts, body=body)
        except JailError:
            self._refuse(HTTPStatus.FORBIDDEN, body=body)
        except OSError:
            if rel == FAVICON:
                # browsers ask for it on their own: a 404 would put an error in the console
                # of every page the model checks, one its page did not cause
                self._no_content()
            else:
                self._refuse(HTTPStatus.NOT_FOUND, body=body)

    def _serve(self, rel: str, *, folder_url: bool, body: bool) -> None:
        workspace = self.server.workspace
        if not _is_folder(workspace, rel):
            self._send_file(rel, body=body)
        elif not folder_url:  # the relative links of its pages need the slash
            self._redirect(urllib.parse.quote(f"/{rel}/"))
        else:
            index = f"{rel}/{INDEX}" if rel != "." else INDEX
            if _is_file(workspace, index):
                self._send_file(index, body=body)
            else:
                self._send_listing(rel, body=body)

    def _send_file(self, rel: str, *, body: bool) -> None:
        workspace = self.server.workspace
        with workspace.locate(rel) as entry, workspace.open_regular(entry, rel) as (fd, info):
            if _hidden(entry.rel):  # reached through a link: `page.txt -> .env`
                raise FileNotFoundError(rel)
            kind = mimetypes.guess_type(rel)[0] or "application/octet-stream"
            if kind.startswith(TEXT_TYPES):
                kind += "; charset=utf-8"
            self.send_response(HTTPStatus.OK)
            self._common_headers(kind, info.st_size)
            if body:
                _copy(fd, self.wfile, info.st_size)

    def _send_listing(self, rel: str, *, body: bool) -> None:
        with self.server.workspace.open_folder(rel) as entry:
            listed = sorted(entry.folder.entries(), key=lambda item: item.name)
        items = []
        for item in listed:
            if item.name.startswith("."):
                continue
            name = item.name + ("/" if item.kind == "dir" else "")
            href = urllib.parse.quote(name)
            items.append(f'<li><a href="{href}">{html.escape(name)}</a></li>')
        title = html.escape("/" if rel == "." else f"/{rel}/")
        page = (
            f'<!doctype html><html><head><meta charset="utf-8"><title>{title}</title></head>'
            f"<body><h1>{title}</h1><ul>{''.join(items)}</ul></body></html>"
        ).encode()
        self.send_response(HTTPStatus.OK)
        self._common_headers("text/html; charset=utf-8", len(page))
        if body:
            self.wfile.write(page)

    def _common_headers(self, kind: str, length: int) -> None:
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(length))
        # a page fixed and opened again must show the fix
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()

    def _no_content(self) -> None:
        self.send_response(HTTPStatus.NO_CONTENT)
        self.send_header("Cache-Control", "no-store")
        self.end_headers()

    def _redirect(self, location: str) -> None:
        self.send_response(HTTPStatus.MOVED_PERMANENTLY)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _refuse(self, status: HTTPStatus, *, body: bool) -> None:
        text = f"{status.value} {status.phrase}\n".encode()
        self.send_response(status)
        self._common_headers("text/plain; charset=utf-8", len(text))
        if body:
            self.wfile.write(text)


def _hidden(rel: str) -> bool:
    """A hidden file or folder on the way (`.env`, `.ssh/key`), or `.`/`..` parts."""
    return any(part.startswith(".") for part in rel.split("/") if part)


def _is_folder(workspace: Workspace, rel: str) -> bool:
    try:
        with workspace.open_folder(rel):
            return True
    except (OSError, JailError):
        return False


def _is_file(workspace: Workspace, rel: str) -> bool:
    try:
        with workspace.locate(rel) as entry, workspace.open_regular(entry, rel):
            return True
    except (OSError, JailError):
        return False


def _copy(fd: int, out: Any, size: int) -> None:
    left = size
    while left > 0:
        block = os.read(fd, min(CHUNK, left))
        if not block:
            break
        out.write(block)
        left -= len(block)
