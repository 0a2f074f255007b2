"""Reading secrets: never on the event loop's thread, and a locked keyring told apart from a
missing secret."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import keyring
import keyring.errors
import pytest

from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.core.mcp.service import McpService
from loki_desktop.core.ports import SecretStoreUnavailable
from loki_desktop.persistence.secrets import KeyringSecrets
from loki_desktop.persistence.settings_file import SettingsFile
from tests.core.mcp.conftest import stdio
from tests.fakes.mcp_servers import processes_tagged
from tests.fakes.memory_keyring import MemoryKeyring


class LockedKeyring(MemoryKeyring):
    """A keyring that holds the secrets but will not give them (a locked SecretService)."""

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringLocked("the collection is locked")


class CountingKeyring(MemoryKeyring):
    def __init__(self) -> None:
        super().__init__()
        self.reads: list[str] = []

    def get_password(self, service: str, username: str) -> str | None:
        self.reads.append(username)
        return super().get_password(service, username)


class PromptingKeyring(MemoryKeyring):
    """A read waits until the test answers, as an unlock prompt would (5 s at most)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self.loop = loop
        self.asked = asyncio.Event()
        self.answered = threading.Event()
        self.reader: threading.Thread | None = None

    def get_password(self, service: str, username: str) -> str | None:
        self.reader = threading.current_thread()
        self.loop.call_soon_threadsafe(self.asked.set)
        self.answered.wait(5)
        return super().get_password(service, username)


def test_a_locked_keyring_raises_its_own_error() -> None:
    keyring.set_keyring(LockedKeyring())
    with pytest.raises(SecretStoreUnavailable, match="verrouillé ou indisponible"):
        KeyringSecrets().get("mcp/echo/API_KEY")


async def test_a_locked_keyring_is_told_apart_from_a_missing_secret(tag: str) -> None:
    config = stdio("echo", "echo", tag=tag, secrets=("API_KEY",))
    keyring.set_keyring(LockedKeyring())
    manager = McpManager({"echo": config}, KeyringSecrets())
    try:
        (locked,) = await manager.prepare()
        keyring.set_keyring(MemoryKeyring())
        missing = await manager.test(config)
    finally:
        await manager.aclose()
    assert "verrouillé ou indisponible" in locked
    assert "absent" not in locked
    assert "absent du trousseau" in missing.message
    assert processes_tagged(tag) == []


async def test_a_server_start_reads_the_keyring_off_the_event_loop(tag: str) -> None:
    backend = PromptingKeyring(asyncio.get_running_loop())
    keyring.set_keyring(backend)
    secrets = KeyringSecrets()
    secrets.set("mcp/echo/API_KEY", "sk-prompted-1")
    manager = McpManager({"echo": stdio("echo", "echo", tag=tag, secrets=("API_KEY",))}, secrets)
    try:
        turn = asyncio.ensure_future(manager.prepare())
        # the loop runs while the keyring waits: this coroutine answers the "prompt"
        await asyncio.wait_for(backend.asked.wait(), 10)
        assert manager.status("echo").state == "connecting"
        backend.answered.set()
        assert await turn == []
        assert backend.reader is not threading.current_thread()
        assert manager.status("echo").state == "connected"
        env = await manager.call("mcp_echo_env", {"name": "API_KEY"})
        assert env.output == "••••"
    finally:
        backend.answered.set()
        await manager.aclose()
    assert processes_tagged(tag) == []


def test_the_settings_view_reads_no_secret(loki_home: Path) -> None:
    backend = CountingKeyring()
    keyring.set_keyring(backend)
    service = McpService(SettingsFile(loki_home / "settings.json"), KeyringSecrets())
    service.set_params("context7", {"CONTEXT7_API_KEY": "ctx7sk-1"})
    service.add_stdio("mine", ["srv"], env={"API_TOKEN": "tok-1"}, enabled=True)
    views = {view.id: view for view in service.servers()}
    assert views["context7"].secrets_set == ("CONTEXT7_API_KEY",)
    assert views["mine"].secrets_set == ("API_TOKEN",)
    assert views["fetch"].secrets_set == ()
    assert service.server("mine").secrets_set == ("API_TOKEN",)
    assert service.problem("mine") is None
    assert service.problem("context7") is None
    assert backend.reads == []
