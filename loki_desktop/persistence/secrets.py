"""Secrets (API keys, tokens) in the OS keyring, service "loki-desktop". Never in a file.

`keyring` is imported when a secret is first read or written, not when the app starts
(it costs ~25 ms, most starts never touch a secret).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from loki_desktop.core.i18n import N_, _
from loki_desktop.core.ports import SecretStoreUnavailable

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

SERVICE = "loki-desktop"

NO_KEYRING_MESSAGE = N_(
    "Aucun trousseau système utilisable (keyring) : le secret n'a pas été enregistré. "
    "Installez et déverrouillez un trousseau (GNOME Keyring / KWallet sous Linux, "
    "présent d'office sous Windows et macOS), puis recommencez."
)
UNREADABLE_MESSAGE = N_(
    "Le trousseau système est verrouillé ou indisponible : le secret n'a pas pu être lu "
    "({error}). Déverrouillez-le (ou démarrez-le), puis recommencez."
)
PLAINTEXT_MESSAGE = N_(
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
        import keyring
        from keyring.backends import chainer, fail

        backend = keyring.get_keyring()
        members = backend.backends if isinstance(backend, chainer.ChainerBackend) else [backend]
        if isinstance(backend, fail.Keyring) or backend.priority <= 0 or not members:
            return _(NO_KEYRING_MESSAGE)
        plain = [m for m in members if _plaintext(m)]
        if plain:
            return _(PLAINTEXT_MESSAGE).format(backend=_backend_name(plain[0]))
        return None

    @classmethod
    def available(cls) -> bool:
        return cls.problem() is None

    def get(self, name: str) -> str | None:
        """The secret, or None when none is stored under `name`.

        Raises SecretStoreUnavailable when the keyring cannot be read (locked, no backend,
        D-Bus gone): that is not the same as an absent secret. May block (an unlock prompt,
        a D-Bus timeout): callers on an event loop read from a thread.
        """
        import keyring.errors

        try:
            return keyring.get_password(self.service, name)
        except keyring.errors.KeyringError as exc:
            error = str(exc) or type(exc).__name__
            raise SecretStoreUnavailable(_(UNREADABLE_MESSAGE).format(error=error)) from None

    def set(self, name: str, value: str) -> None:
        problem = self.problem()
        if problem is not None:
            raise SecretStoreUnavailable(problem)
        import keyring.errors

        try:
            keyring.set_password(self.service, name, value)
        except keyring.errors.KeyringError as exc:
            raise SecretStoreUnavailable(f"{_(NO_KEYRING_MESSAGE)} ({exc})") from None

    def delete(self, name: str) -> None:
        import keyring.errors

        try:
            keyring.delete_password(self.service, name)
        except keyring.errors.PasswordDeleteError:
            pass
        except keyring.errors.KeyringError as exc:
            raise SecretStoreUnavailable(f"{_(NO_KEYRING_MESSAGE)} ({exc})") from None
