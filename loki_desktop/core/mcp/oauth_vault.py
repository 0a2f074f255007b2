"""An HTTP server's OAuth sign-in kept in the keyring (tokens, registration, client secret).

Everything lives under the SecretStore port, never in a file:
    mcp/<id>/oauth            JSON: tokens, their expiry, the registered client, the
                              authorization server's metadata (to refresh after a restart),
                              "idp": the ID token and refresh token of an enterprise
                              sign-in at the person's identity provider (core.mcp.enterprise)
    mcp/<id>/oauth-secret     the client secret (or private key) of a pre-registered client
    mcp/<id>/idp-secret       Loki's client secret at an enterprise identity provider, when it
                              wants one (core.mcp.enterprise)
No `mcp` import here: the service and the CLI read and clear a sign-in without the SDK.
Every call may block (an unlock prompt): on an event loop, call it in a thread.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from loki_desktop.core.ports import SecretStore


def session_key(server_id: str) -> str:
    return f"mcp/{server_id}/oauth"


def client_secret_key(server_id: str) -> str:
    return f"mcp/{server_id}/oauth-secret"


def idp_secret_key(server_id: str) -> str:
    return f"mcp/{server_id}/idp-secret"


class OAuthVault:
    """One server's sign-in record: a JSON object in the keyring."""

    def __init__(self, secrets: SecretStore, server_id: str) -> None:
        self.secrets = secrets
        self.server_id = server_id

    def load(self) -> dict[str, Any]:
        raw = self.secrets.get(session_key(self.server_id))
        if not raw:
            return {}
        with contextlib.suppress(ValueError):
            data = json.loads(raw)
            if isinstance(data, dict):
                return data
        return {}

    def update(self, **parts: Any) -> None:
        """Merge `parts` into the record (a None value removes that part)."""
        data = self.load()
        for name, value in parts.items():
            if value is None:
                data.pop(name, None)
            else:
                data[name] = value
        self.secrets.set(session_key(self.server_id), json.dumps(data))

    def signed_in(self) -> bool:
        """Whether tokens are stored (they may have expired: a refresh may still renew them),
        or the person's sign-in at their identity provider (an enterprise sign-in)."""
        data = self.load()
        return bool(data.get("tokens") or data.get("idp"))

    def client_secret(self) -> str | None:
        return self.secrets.get(client_secret_key(self.server_id))

    def set_client_secret(self, value: str | None) -> None:
        self._set(client_secret_key(self.server_id), value)

    def idp_secret(self) -> str | None:
        return self.secrets.get(idp_secret_key(self.server_id))

    def set_idp_secret(self, value: str | None) -> None:
        self._set(idp_secret_key(self.server_id), value)

    def _set(self, key: str, value: str | None) -> None:
        if value:
            self.secrets.set(key, value)
        else:
            with contextlib.suppress(Exception):
                self.secrets.delete(key)

    def forget(self, *, keep_client: bool = True) -> None:
        """Sign out: drop the tokens (and the dynamic registration unless `keep_client`)."""
        data = self.load()
        if not data:
            return
        data.pop("tokens", None)
        data.pop("expires_at", None)
        data.pop("idp", None)
        if not keep_client:
            data.pop("client", None)
        if data:
            self.secrets.set(session_key(self.server_id), json.dumps(data))
        else:
            with contextlib.suppress(Exception):
                self.secrets.delete(session_key(self.server_id))
