"""A server whose start failed is remembered across processes: its next start does not hold
the message, and a second failure in a row says it does not answer at its start."""

from __future__ import annotations

import json
from pathlib import Path

from loki_desktop.core.mcp.health import FILE_NAME, StartHealth
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.persistence.secrets import KeyringSecrets
from tests.core.mcp.conftest import eventually, stdio
from tests.fakes.mcp_servers import processes_tagged

SLOW_MACHINE_S = 60.0  # a real start on a saturated machine


def _manager(tag: str, data_home: Path, handshake_s: float, name: str = "never_answers"):
    config = stdio("hang", name, tag=tag)
    return McpManager(
        {"hang": config},
        KeyringSecrets(),
        data_home=data_home,
        handshake_timeout=handshake_s,
        connect_wait=SLOW_MACHINE_S,  # without the memory, the message would wait this long
        backoff=(0,),
    )


async def test_a_start_that_failed_is_not_waited_for_by_the_next_process(
    tag: str, tmp_path: Path
) -> None:
    first = _manager(tag, tmp_path, handshake_s=1.0)
    try:
        await first.prepare()
        assert await eventually(lambda: StartHealth(tmp_path).last_failure("hang") is not None)
    finally:
        await first.aclose()
    failure = StartHealth(tmp_path).last_failure("hang")
    assert failure is not None
    assert failure.failures == 1

    second = _manager(tag, tmp_path, handshake_s=1.0)
    try:
        notices = await second.prepare()
        # the message went on while the server still tries to start, in the background
        assert second.status("hang").state == "connecting"
        assert any("démarre en arrière-plan" in notice for notice in notices), notices
        # it fails again there: two in a row
        assert await eventually(lambda: StartHealth(tmp_path).last_failure("hang").failures == 2)
    finally:
        await second.aclose()

    third = _manager(tag, tmp_path, handshake_s=SLOW_MACHINE_S)
    try:
        notices = await third.prepare()
        assert third.status("hang").state == "connecting"
        (said,) = [n for n in notices if "ne répond pas au démarrage" in n]
        assert "2 échecs de suite" in said
        assert "mcp disable hang" in said
    finally:
        await third.aclose()
    assert processes_tagged(tag) == []


async def test_a_start_that_succeeds_forgets_the_failure(tag: str, tmp_path: Path) -> None:
    StartHealth(tmp_path).failed("hang", "Le serveur ne répond pas.")
    manager = _manager(tag, tmp_path, handshake_s=SLOW_MACHINE_S, name="echo")
    try:
        await manager.prepare()  # not waited for: it failed lately
        assert await eventually(lambda: manager.status("hang").state == "connected")
        assert StartHealth(tmp_path).last_failure("hang") is None
    finally:
        await manager.aclose()


def test_an_unreadable_memory_counts_as_none(tmp_path: Path) -> None:
    (tmp_path / FILE_NAME).write_text("{not json")
    assert StartHealth(tmp_path).last_failure("hang") is None
    StartHealth(tmp_path).failed("hang", "token=sk-secret-123456789 refused")
    kept = json.loads((tmp_path / FILE_NAME).read_text())
    assert "sk-secret" not in kept["hang"]["cause"]  # no secret in the file
    assert StartHealth(None).last_failure("hang") is None  # no data folder: no memory
