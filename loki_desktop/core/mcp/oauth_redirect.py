"""The loopback redirect of an OAuth sign-in (RFC 8252 §7.3): one page on 127.0.0.1.

The system browser comes back to `http://127.0.0.1:<port>/callback?code=…&state=…`; the
listener answers with a short page and hands the query to whoever awaits `result()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from loki_desktop.core.i18n import _

CALLBACK_PATH = "/callback"
MAX_REQUEST_BYTES = 16_384
SIGN_IN_TIMEOUT_S = 300.0  # the person reads the page, types a password, maybe a second factor
Browser = Callable[[str], Awaitable[None]]  # shows an authorization URL to the person


@dataclass(frozen=True, slots=True)
class Redirect:
    """What the authorization server sent back through the browser."""

    code: str = ""
    state: str | None = None
    iss: str | None = None
    error: str = ""  # RFC 6749 §4.1.2.1: access_denied, invalid_scope...
    error_description: str = ""


class LoopbackRedirect:
    """`async with LoopbackRedirect(port) as listener:` then `listener.uri`, `await result()`."""

    def __init__(self, port: int = 0) -> None:
        self.port = port
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[Redirect] | None = None

    @property
    def uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def __aenter__(self) -> LoopbackRedirect:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def start(self) -> None:
        self._result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None

    def fresh(self) -> None:
        """Wait for a new redirect (a step-up after a first sign-in)."""
        self._result = asyncio.get_running_loop().create_future()

    async def result(self) -> Redirect:
        assert self._result is not None, "start() first"
        return await asyncio.shield(self._result)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            writer.close()
            return
        line = head[:MAX_REQUEST_BYTES].split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split(" ")
        target = urlsplit(parts[1]) if len(parts) >= 2 else urlsplit("")
        if parts[0] != "GET" or target.path != CALLBACK_PATH:
            await _answer(writer, 404, _("Page inconnue."))
            return
        query = {name: values[0] for name, values in parse_qs(target.query).items()}
        redirect = Redirect(
            code=query.get("code", ""),
            state=query.get("state"),
            iss=query.get("iss"),
            error=query.get("error", ""),
            error_description=query.get("error_description", ""),
        )
        if redirect.code:
            text = _("Connexion réussie. Vous pouvez fermer cet onglet et revenir à Loki.")
        else:
            text = _("La connexion a échoué : {error}.").format(
                error=redirect.error_description or redirect.error or _("aucun code reçu")
            )
        await _answer(writer, 200, text)
        if self._result is not None and not self._result.done():
            self._result.set_result(redirect)


async def _answer(writer: asyncio.StreamWriter, status: int, text: str) -> None:
    body = (
        '<!doctype html><meta charset="utf-8"><title>Loki</title>'
        f'<p style="font: 18px sans-serif; margin: 3em">{html.escape(text)}</p>'
    ).encode()
    reason = "OK" if status == 200 else "Not Found"
    writer.write(
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body
    )
    with contextlib.suppress(ConnectionError):
        await writer.drain()
    writer.close()
