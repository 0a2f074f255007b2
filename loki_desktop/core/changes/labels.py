"""The words people read for a kind of file change (light: the window imports it at start)."""

from __future__ import annotations

from loki_desktop.core.i18n import _


def kind_label(kind: str) -> str:
    """ "added", "modified", "deleted" as French source words, translated."""
    labels = {"added": _("ajouté"), "modified": _("modifié"), "deleted": _("supprimé")}
    return labels.get(kind, kind)
