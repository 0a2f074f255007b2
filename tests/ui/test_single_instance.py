"""The single-instance parts the process-level test (tests/e2e) does not reach: a lock left
by a killed Loki, a running Loki that does not answer, and requests that are not JSON."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

from loki_desktop.ui.single_instance import (
    MAX_MESSAGE_BYTES,
    InstanceLock,
    InstanceServer,
    hand_off,
)

HOLD_LOCK = """
import sys, time
from pathlib import Path
from loki_desktop.ui.single_instance import InstanceLock
lock = InstanceLock(Path(sys.argv[1]))  # kept: the lock goes with the object
assert lock.acquire()
print("locked", flush=True)
time.sleep(60)
"""


def test_a_lock_left_by_a_killed_loki_is_taken_over(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "locked"
        lock = InstanceLock(tmp_path)
        assert not lock.acquire()  # a live Loki holds it
        holder.kill()
        holder.wait(timeout=10)
        assert lock.acquire()  # its process is gone: the lock is stale, taken over
        lock.release()
    finally:
        if holder.poll() is None:
            holder.kill()
        holder.wait(timeout=10)
        assert holder.stdout is not None
        holder.stdout.close()


def test_a_hand_off_to_a_loki_that_does_not_listen_gives_up(qapp: Any) -> None:
    name = f"loki-test-{uuid.uuid4().hex[:12]}"
    assert not hand_off(name, {"action": "show"}, deadline_s=0.3)


async def test_the_server_takes_json_lines_and_refuses_anything_else(qapp: Any) -> None:
    server = InstanceServer(f"loki-test-{uuid.uuid4().hex[:12]}")
    received: list[dict[str, Any]] = []
    server.message_received.connect(received.append)
    assert server.listen()
    try:

        async def send(payload: bytes) -> bytes:
            reader, writer = await asyncio.open_unix_connection(server.address())
            writer.write(payload)
            await writer.drain()
            reply = await asyncio.wait_for(reader.read(), 5)
            writer.close()
            await writer.wait_closed()
            return reply

        assert await send(b'{"action": "quick", "text": "Bonjour"}\n') == b"ok\n"
        assert received == [{"action": "quick", "text": "Bonjour"}]
        assert await send(b"pas du json\n") == b"error\n"
        assert await send(b'["une", "liste"]\n') == b"error\n"
        assert await send(b"x" * (MAX_MESSAGE_BYTES + 10)) == b""  # cut off, no answer
        assert received == [{"action": "quick", "text": "Bonjour"}]
    finally:
        server.close()
