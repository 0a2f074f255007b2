"""One Loki window per user: a second launch hands its request to the running one and exits.

A lock file in the data folder decides who runs (QLockFile notices a lock left by a dead
process); the running instance listens on a local socket named after the data folder,
so test runs with their own $LOKI_HOME never meet the user's Loki.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import logging
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QLockFile, QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_MS = 1000
HAND_OFF_DEADLINE_S = 5.0  # the first instance may still be starting: keep knocking this long
MAX_MESSAGE_BYTES = 64_000


def socket_name(data_home: Path) -> str:
    key = f"{getpass.getuser()}:{data_home.resolve()}"
    return "loki-desktop-" + hashlib.sha256(key.encode()).hexdigest()[:16]


class InstanceLock:
    """Held by the instance that shows the window."""

    def __init__(self, data_home: Path) -> None:
        self._lock = QLockFile(str(data_home / "window.lock"))
        self._lock.setStaleLockTime(0)  # stale only when its process is gone, never by age

    def acquire(self) -> bool:
        return bool(self._lock.tryLock(0))

    def release(self) -> None:
        self._lock.unlock()


def hand_off(name: str, message: dict[str, Any], deadline_s: float = HAND_OFF_DEADLINE_S) -> bool:
    """Give `message` to the running instance; True once it said it got it."""
    payload = json.dumps(message, ensure_ascii=False).encode() + b"\n"
    end = time.monotonic() + deadline_s
    while True:
        socket = QLocalSocket()
        socket.connectToServer(name)
        if socket.waitForConnected(CONNECT_TIMEOUT_MS):
            socket.write(payload)
            socket.flush()
            socket.waitForBytesWritten(CONNECT_TIMEOUT_MS)
            reply = _read_reply(socket)
            socket.disconnectFromServer()
            if reply == b"ok":
                return True
        socket.abort()
        if time.monotonic() >= end:
            return False
        time.sleep(0.1)


def _read_reply(socket: QLocalSocket) -> bytes:
    """The running instance's one-line answer (it may close right after writing it)."""
    data = b""
    end = time.monotonic() + CONNECT_TIMEOUT_MS * 3 / 1000
    while b"\n" not in data and time.monotonic() < end:
        socket.waitForReadyRead(50)
        data += bytes(socket.readAll().data())
        if socket.state() != QLocalSocket.LocalSocketState.ConnectedState:
            data += bytes(socket.readAll().data())
            break
    return data.strip()


class InstanceServer(QObject):
    """The running instance's end: each line received is one JSON request."""

    message_received = Signal(dict)

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._accept)
        self._buffers: dict[QLocalSocket, bytes] = {}

    def listen(self) -> bool:
        # we hold the lock, so a socket file left behind belongs to a dead instance
        QLocalServer.removeServer(self.name)
        listening = bool(self._server.listen(self.name))
        if not listening:
            log.warning("single instance socket unavailable: %s", self._server.errorString())
        return listening

    def address(self) -> str:
        """Where it listens (a socket file path on Unix)."""
        return str(self._server.fullServerName())

    def close(self) -> None:
        self._server.close()

    def _accept(self) -> None:
        while self._server.hasPendingConnections():
            socket = self._server.nextPendingConnection()
            self._buffers[socket] = b""
            socket.readyRead.connect(lambda s=socket: self._read(s))
            socket.disconnected.connect(lambda s=socket: self._forget(s))
            if socket.bytesAvailable():  # arrived before readyRead was connected
                self._read(socket)

    def _read(self, socket: QLocalSocket) -> None:
        data = self._buffers.get(socket, b"") + bytes(socket.readAll().data())
        if len(data) > MAX_MESSAGE_BYTES:
            socket.abort()
            return
        self._buffers[socket] = data
        if b"\n" not in data:
            return
        line = data.split(b"\n", 1)[0]
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if isinstance(message, dict):
            self.message_received.emit(message)
            socket.write(b"ok\n")
        else:
            socket.write(b"error\n")
        socket.flush()
        socket.disconnectFromServer()

    def _forget(self, socket: QLocalSocket) -> None:
        self._buffers.pop(socket, None)
        socket.deleteLater()
