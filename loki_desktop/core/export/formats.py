"""One entry to the three export formats, secrets masked first, and the file written whole."""

from __future__ import annotations

import dataclasses
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
# keys whose values are never free text (left as they are by the masking)
_NOT_TEXT = frozenset(
    {
        "images",
        "kind",
        "format",
        "id",
        "role",
        "origin",
        "tool_call_id",
        "tool_name",
        "model",
        "text_call",
        "direction",
        "tools",
    }
)
# a known secret shorter than this is not searched for (it would mask ordinary words)
MIN_SECRET = 6


class ExportFailed(Exception):
    """The export could not be written (one sentence); nothing was left half-written."""


def render(conversation: ConversationExport, fmt: Format, secrets: Sequence[str] = ()) -> str:
    """The export as text. Secrets never go into it: the values of the keyring's secrets
    (`secrets`) and anything shaped like one (core.mcp.secret_values) become "••••" in every
    text of every message, so the JSON is lossless but for them."""
    known = tuple(sorted({s for s in secrets if len(s) >= MIN_SECRET}, key=len, reverse=True))
    if fmt == "md":  # plain text: masked whole, in one pass (images are data URIs: no match)
        return _mask_text(to_markdown(conversation), known)
    if fmt == "html":  # only the branch shown is on the page
        shown = dataclasses.replace(conversation, messages=tuple(conversation.path()))
        return to_html(masked(shown, known))
    return to_json(masked(conversation, known))


def masked(conversation: ConversationExport, known: Sequence[str] = ()) -> ConversationExport:
    return from_dict(_mask_tree(to_dict(conversation), tuple(known)))


def _mask_text(text: str, known: tuple[str, ...]) -> str:
    for secret in known:
        text = text.replace(secret, MASK)
    return mask(text)


def _mask_tree(value: Any, known: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        return _mask_text(value, known)
    if isinstance(value, list):
        return [_mask_tree(item, known) for item in value]
    if isinstance(value, dict):
        # images are data, not text; ids, roles and kinds are Loki's own words
        return {k: v if k in _NOT_TEXT else _mask_tree(v, known) for k, v in value.items()}
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
