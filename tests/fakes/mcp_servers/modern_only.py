"""An MCP server of the 2026 protocol only: it refuses the `initialize` handshake (-32022).

A stdio proxy in front of echo.py (or the server script named by the first argument, e.g.
`modern_only.py features`): `initialize` is answered here with UNSUPPORTED_PROTOCOL_VERSION
naming 2026-07-28 only, everything else goes to the echo server, which serves the 2026 era
when the first request it sees carries the per-request envelope (`server/discover`).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

MODERN = "2026-07-28"
_out = threading.Lock()


def _write(line: bytes) -> None:
    with _out:
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()


def _pump(child_out: object) -> None:
    for line in child_out:  # type: ignore[attr-defined]
        _write(line)


def main() -> None:
    target = sys.argv[1] if len(sys.argv) > 1 else "echo"
    echo = Path(__file__).with_name(f"{target}.py")
    child = subprocess.Popen(
        [sys.executable, str(echo)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert child.stdin is not None
    assert child.stdout is not None
    reader = threading.Thread(target=_pump, args=(child.stdout,), daemon=True)
    reader.start()
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            message = {}
        method = message.get("method") if isinstance(message, dict) else None
        if method == "initialize":
            error = {
                "code": -32022,
                "message": "this server speaks the 2026-07-28 protocol only",
                "data": {"supported": [MODERN], "requested": message["params"]["protocolVersion"]},
            }
            reply = {"jsonrpc": "2.0", "id": message["id"], "error": error}
            _write(json.dumps(reply).encode() + b"\n")
            continue
        if method == "notifications/initialized":
            continue
        child.stdin.write(line)
        child.stdin.flush()
    child.stdin.close()
    child.wait()
    reader.join(timeout=5)


if __name__ == "__main__":
    main()
