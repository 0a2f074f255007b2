"""Secrets (API keys, tokens) in the OS keyring, service "loki-desktop". Never in a file."""

from __future__ import annotations

import keyring
import keyring.errors
from keyring.backend import KeyringBackend
from keyring.backends import chainer, fail

from loki_desktop.core.ports import SecretStoreUnavailable

SERVICE = "loki-desktop"

NO_KEYRING_MESSAGE = (
    "Aucun trousseau système utilisable (keyring) : le secret n'a pas été enregistré. "
    "Installez et déverrouillez un trousseau (GNOME Keyring / KWallet sous Linux, "
    "présent d'office sous Windows et macOS), puis recommencez."
)
PLAINTEXT_MESSAGE = (
    "Le trousseau configuré ({backend}) range les secrets en clair dans un fichier : le "
    "secret n'a pas été enregistré. Utilisez un vrai trousseau système (GNOME Keyring, "
    "KWallet, Trousseau macOS, Gestionnaire d'identifiants Windows)."
)


def _backend_name(backend: KeyringBackend) -> str:
    return f"{type(backend).__module__}.{type(backend).__name__}"


def _plaintext(backend: KeyringBackend) -> bool:
    """keyrings.alt's file backends write base64 or plain text, not encryption."""
    return "plaintext" in _backend_name(backend).lower()


class KeyringSecrets:
    """SecretStore over `keyring`. With no usable backend, writing fails loudly.

    A backend that would write the secret in clear (keyrings.alt's PlaintextKeyring) counts
    as unusable: the secret is refused rather than stored in a readable file.
    """

    def __init__(self, service: str = SERVICE) -> None:
        self.service = service

    @staticmethod
    def problem() -> str | None:
        """Why secrets cannot be stored now (a French sentence), or None."""
        backend = keyring.get_keyring()
        members = backend.backends if isinstance(backend, chainer.ChainerBackend) else [backend]
        if isinstance(backend, fail.Keyring) or backend.priority <= 0 or not members:
            return NO_KEYRING_MESSAGE
        plain = [m for m in members if _plaintext(m)]
        if plain:
            return PLAINTEXT_MESSAGE.format(backend=_backend_name(plain[0]))
        return None

    @classmethod
    def available(cls) -> bool:
        return cls.problem() is None

    def get(self, name: str) -> str | None:
        try:
            return keyring.get_password(self.service, name)
        except keyring.errors.KeyringError:
            return None

    def set(self, name: str, value: str) -> None:
        problem = self.problem()
        if problem is not None:
            raise SecretStoreUnavailable(problem)
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
