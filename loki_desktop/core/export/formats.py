"""One entry to the three export formats, secrets masked first, and the file written whole."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from loki_desktop.core.export.html import to_html
from loki_desktop.core.export.jsonfile import from_dict, to_dict, to_json
from loki_desktop.core.export.markdown import to_markdown
from loki_desktop.core.files import atomic_write
from loki_desktop.core.i18n import _
from loki_desktop.core.mcp.config import secret_key
from loki_desktop.core.mcp.secret_values import MASK, mask
from loki_desktop.core.messages import ConversationExport
from loki_desktop.core.model_servers import key_name, servers
from loki_desktop.core.ports import SecretStore, SecretStoreUnavailable
from loki_desktop.core.settings import Settings

Format = Literal["md", "json", "html"]
FORMATS: tuple[Format, ...] = ("md", "json", "html")
SUFFIXES = {"md": ".md", "json": ".json", "html": ".html"}
# a known secret shorter than this is not searched for (it would mask ordinary words)
MIN_SECRET = 6


class ExportFailed(Exception):
    """The export could not be written (one sentence); nothing was left half-written."""


def render(conversation: ConversationExport, fmt: Format, secrets: Sequence[str] = ()) -> str:
    """The export as text. Secrets never go into it: the values of the keyring's secrets
    (`secrets`) and anything shaped like one (core.mcp.secret_values) become "••••" in every
    text of every message, so the JSON is lossless but for them."""
    clean = masked(conversation, secrets)
    if fmt == "json":
        return to_json(clean)
    return to_html(clean) if fmt == "html" else to_markdown(clean)


def masked(conversation: ConversationExport, secrets: Sequence[str] = ()) -> ConversationExport:
    known = tuple(sorted({s for s in secrets if len(s) >= MIN_SECRET}, key=len, reverse=True))
    return from_dict(_mask_tree(to_dict(conversation), known))


def _mask_tree(value: Any, known: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        for secret in known:
            value = value.replace(secret, MASK)
        return mask(value)
    if isinstance(value, list):
        return [_mask_tree(item, known) for item in value]
    if isinstance(value, dict):
        # images are data, not text: their base64 is left alone
        return {k: v if k == "images" else _mask_tree(v, known) for k, v in value.items()}
    return value


def write(path: Path, text: str) -> None:
    """Write the whole file or nothing (a temporary file renamed over the target)."""
    try:
        atomic_write(path, text.encode("utf-8"))
    except OSError as exc:
        raise ExportFailed(
            _(
                "L'export n'a pas pu être écrit dans {path} ({error}) : vérifiez le dossier, "
                "ses droits et l'espace disque ; aucun fichier n'a été laissé à moitié écrit."
            ).format(path=path, error=exc.strerror or exc)
        ) from exc


def default_name(title: str, fmt: Format) -> str:
    """`<title>.md`: the title made a file name (no slash, no leading dot)."""
    cleaned = "".join("-" if c in '/\\:*?"<>|' or ord(c) < 32 else c for c in title).strip()
    cleaned = cleaned.lstrip(".").strip() or _("conversation")
    return cleaned[:80] + SUFFIXES[fmt]


def known_secrets(settings: Settings, store: SecretStore) -> list[str]:
    """The values the keyring holds for the configured MCP servers and model servers (an
    unusable keyring gives none: shaped secrets are still masked)."""
    names = [
        secret_key(str(server_id), str(name))
        for server_id, entry in settings.mcp_servers.items()
        if isinstance(entry, dict) and isinstance(entry.get("secrets"), list)
        for name in entry["secrets"]
    ]
    names += [key_name(server.name) for server in servers(settings)]
    values: list[str] = []
    for name in names:
        try:
            value = store.get(name)
        except SecretStoreUnavailable:
            return values
        if value:
            values.append(value)
    return values
