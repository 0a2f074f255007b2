"""Translation of the core's human sentences (gettext; the source language is French).

The window translates its own text with Qt's tr(); the core cannot import Qt, so its
notices and errors go through gettext with the domain "loki-desktop". With no catalogue
installed for the user's language the French source text is used; none ships yet (a
catalogue would go in resources/locale/<lang>/LC_MESSAGES/loki-desktop.mo).
"""

from __future__ import annotations

import gettext
from importlib import resources

_LOCALE_DIR = str(resources.files("loki_desktop.resources").joinpath("locale"))
_translation = gettext.translation("loki-desktop", localedir=_LOCALE_DIR, fallback=True)


def _(message: str) -> str:
    return _translation.gettext(message)
