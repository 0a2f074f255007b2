"""What the scripted HTTP servers share: a quiet threaded server and its start/stop."""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


class QuietServer(ThreadingHTTPServer):
    """A client that goes away mid-stream (the Stop button) is normal, not an error to print."""

    daemon_threads = True
    owner: ServedFake | None = None  # the fake it serves (set when it starts)

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class QuietServer6(QuietServer):
    """The same on an IPv6 address (::1)."""

    address_family = socket.AF_INET6


class ServedFake:
    """A scripted server's lifecycle: served from a thread, stopped like a killed server.

    Subclasses build `_server` (its handler a TrackedHandler, which keeps each connection
    in `_connections` while it serves it) and keep their state under `_lock`."""

    _server: QuietServer

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()  # keep-alive ones outlive shutdown()
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def start(self) -> Self:
        self._server.owner = self
        # a short poll interval: stop() (shutdown) waits for it, in every test's teardown
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop like a killed server: the listening socket and every open connection close."""
        self._server.shutdown()
        self._server.server_close()
        with self._lock:
            connections, self._connections = self._connections, set()
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class TrackedHandler(BaseHTTPRequestHandler):
    """The base of a scripted server's handler: HTTP/1.1 keep-alive, Nagle off, quiet, and
    each connection known to the fake while it is served (so stop() can close it)."""

    server: QuietServer
    protocol_version = "HTTP/1.1"
    # Like Ollama (Go sets TCP_NODELAY): without it the first streamed line waits ~40 ms
    # behind the headers for the client's delayed ACK.
    disable_nagle_algorithm = True

    def setup(self) -> None:
        super().setup()
        fake = self.server.owner
        if fake is not None:
            with fake._lock:
                fake._connections.add(self.connection)

    def finish(self) -> None:
        fake = self.server.owner
        if fake is not None:
            with fake._lock:
                fake._connections.discard(self.connection)
        super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean
