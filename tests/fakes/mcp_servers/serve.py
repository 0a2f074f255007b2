"""How every server script starts: stdio by default, `--http PORT` (0: any) for streamable
HTTP, printing "PORT n" once it knows its port. Scripts import it as a sibling module."""

from __future__ import annotations

import argparse
import socket
from typing import Any


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve(server: Any) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, help="serve streamable HTTP on this port (0: any)")
    parser.add_argument("--json", action="store_true", help="answer in JSON bodies, not SSE")
    args, _rest = parser.parse_known_args()  # a server may be given arguments it only shows
    if args.http is None:
        server.run()
        return
    port = args.http or _free_port()
    print(f"PORT {port}", flush=True)
    server.run("streamable-http", host="127.0.0.1", port=port, json_response=args.json)
