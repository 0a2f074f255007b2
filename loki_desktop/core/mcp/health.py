"""How each MCP server's last starts went, kept across processes (`mcp-health.json` in the data
folder): a server that failed lately starts in the background and holds no message's first
token, and one that failed twice in a row is said not to answer at its start.

One small JSON object, `{server_id: {"at": unix time, "cause": text, "failures": n}}`, written
whole through a temporary file and a rename (a reader never sees half of it); an unreadable
file counts as empty (it only ever makes a start wait, never fail).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from loki_desktop.core.mcp.secret_values import mask

FILE_NAME = "mcp-health.json"
RECENT_S = 15 * 60.0  # a failure this recent: the next start does not hold the turn
MAX_BYTES = 256 * 1024
MAX_CAUSE = 300


@dataclass(frozen=True, slots=True)
class LastFailure:
    at: float  # unix time
    cause: str
    failures: int  # in a row, across processes

    def recent(self, now: float | None = None) -> bool:
        return (now if now is not None else time.time()) - self.at < RECENT_S


class StartHealth:
    """The failures of the servers' starts, read and written in the data folder."""

    def __init__(self, folder: Path | None) -> None:
        self.path = folder / FILE_NAME if folder is not None else None

    def last_failure(self, server_id: str) -> LastFailure | None:
        entry = self._read().get(server_id)
        if not isinstance(entry, dict):
            return None
        at, cause, failures = entry.get("at"), entry.get("cause"), entry.get("failures")
        if not isinstance(at, int | float) or not isinstance(failures, int):
            return None
        return LastFailure(float(at), cause if isinstance(cause, str) else "", failures)

    def failed(self, server_id: str, cause: str) -> None:
        data = self._read()
        before = self.last_failure(server_id)
        data[server_id] = {
            "at": time.time(),
            "cause": mask(cause)[:MAX_CAUSE],  # no secret in a file, even in an error
            "failures": (before.failures if before else 0) + 1,
        }
        self._write(data)

    def started(self, server_id: str) -> None:
        data = self._read()
        if data.pop(server_id, None) is not None:
            self._write(data)

    def _read(self) -> dict[str, object]:
        if self.path is None:
            return {}
        try:
            with self.path.open("rb") as file:
                raw = file.read(MAX_BYTES + 1)
            data = json.loads(raw) if len(raw) <= MAX_BYTES else {}
        except (OSError, ValueError, RecursionError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, object]) -> None:
        if self.path is None:
            return
        temporary = self.path.with_name(f".{FILE_NAME}.{os.getpid()}.tmp")
        # a full disk or a read-only folder: the memory is lost, never the start
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_text(json.dumps(data), encoding="utf-8")
            os.replace(temporary, self.path)
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
