"""Secrets (API keys, tokens) in the OS keyring, service "loki-desktop". Never in a file."""

from __future__ import annotations

import keyring
import keyring.errors
from keyring.backends import fail

from loki_desktop.core.ports import SecretStoreUnavailable

SERVICE = "loki-desktop"

NO_KEYRING_MESSAGE = (
    "Aucun trousseau système utilisable (keyring) : le secret n'a pas été enregistré. "
    "Installez et déverrouillez un trousseau (GNOME Keyring / KWallet sous Linux, "
    "présent d'office sous Windows et macOS), puis recommencez."
)


class KeyringSecrets:
    """SecretStore over `keyring`. With no usable backend, writing fails loudly."""

    def __init__(self, service: str = SERVICE) -> None:
        self.service = service

    @staticmethod
    def available() -> bool:
        backend = keyring.get_keyring()
        return not isinstance(backend, fail.Keyring) and backend.priority > 0

    def get(self, name: str) -> str | None:
        try:
            return keyring.get_password(self.service, name)
        except keyring.errors.KeyringError:
            return None

    def set(self, name: str, value: str) -> None:
        try:
            keyring.set_password(self.service, name, value)
        except keyring.errors.KeyringError as exc:
            raise SecretStoreUnavailable(f"{NO_KEYRING_MESSAGE} ({exc})") from None

    def delete(self, name: str) -> None:
        try:
            keyring.delete_password(self.service, name)
        except keyring.errors.PasswordDeleteError:
            pass
        except keyring.errors.KeyringError as exc:
            raise SecretStoreUnavailable(f"{NO_KEYRING_MESSAGE} ({exc})") from None
