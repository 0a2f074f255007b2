"""A recording HTTP forward proxy on loopback, for tests of proxy settings (HTTP_PROXY).

A client using it sends each request in absolute form (`GET http://host:port/path`,
RFC 9112 §3.2.2); the proxy records the URL and forwards the request to one upstream
server whatever the host named (so `http://ollama.example` can reach the scripted Ollama
without any network). CONNECT (HTTPS tunnels) is answered 501: no test needs it.

    with RecordingProxy(upstream=server.url) as proxy:
        env HTTP_PROXY=proxy.url ... ; proxy.seen == ["http://ollama.example:11434/api/tags"]
"""

from __future__ import annotations

import http.client
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit


class RecordingProxy:
    def __init__(self, upstream: str) -> None:
        self.upstream = urlsplit(upstream)
        self.seen: list[str] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> RecordingProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def record(self, url: str) -> None:
        with self._lock:
            self.seen.append(url)


def _handler_for(proxy: RecordingProxy) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self._forward()

        def do_POST(self) -> None:
            self._forward()

        def do_CONNECT(self) -> None:
            proxy.record(f"CONNECT {self.path}")
            self.send_error(501)

        def _forward(self) -> None:
            proxy.record(self.path)
            target = urlsplit(self.path)  # absolute form: the host the client wanted
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            upstream = http.client.HTTPConnection(
                proxy.upstream.hostname or "127.0.0.1", proxy.upstream.port, timeout=30
            )
            path = target.path + (f"?{target.query}" if target.query else "")
            headers = {"Content-Type": self.headers.get("Content-Type", "application/json")}
            upstream.request(self.command, path, body=body, headers=headers)
            answer = upstream.getresponse()
            payload = answer.read()
            upstream.close()
            self.send_response(answer.status)
            self.send_header("Content-Type", answer.getheader("Content-Type") or "text/plain")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler
