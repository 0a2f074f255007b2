"""Keyring backends for tests: in memory, or in a JSON file outside $LOKI_HOME for subprocesses.

Select one in a child process with PYTHON_KEYRING_BACKEND=tests.fakes.memory_keyring.FileKeyring
and LOKI_TEST_KEYRING_FILE=/some/tmp/file.json.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class MemoryKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.values.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.values[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.values.pop((service, username), None) is None:
            raise PasswordDeleteError(username)


class LockedKeyring(MemoryKeyring):
    """A keyring waiting for its unlock prompt: writes block until `unlock` is set (as a
    SecretService collection does while it asks for the password); `asked` tells a write
    is waiting."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = threading.Event()
        self.unlock = threading.Event()

    def set_password(self, service: str, username: str, password: str) -> None:
        self.asked.set()
        if not self.unlock.wait(timeout=60):
            raise TimeoutError("the test never unlocked the keyring")
        super().set_password(service, username, password)


class FileKeyring(KeyringBackend):
    """Test-only: a JSON file named by LOKI_TEST_KEYRING_FILE (never under $LOKI_HOME)."""

    priority = 1  # type: ignore[assignment]

    @property
    def _path(self) -> Path:
        return Path(os.environ["LOKI_TEST_KEYRING_FILE"])

    def _load(self) -> dict[str, str]:
        try:
            return dict(json.loads(self._path.read_text()))
        except FileNotFoundError:
            return {}

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(f"{service}/{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        values = self._load()
        values[f"{service}/{username}"] = password
        self._path.write_text(json.dumps(values))

    def delete_password(self, service: str, username: str) -> None:
        values = self._load()
        if values.pop(f"{service}/{username}", None) is None:
            raise PasswordDeleteError(username)
        self._path.write_text(json.dumps(values))
