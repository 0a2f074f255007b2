"""The "Langue" menu of Réglages → Général: automatic (the system's), Français, English."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox

from loki_desktop.core.i18n import _, system_language

# each language named in itself, so a person who cannot read the current one still finds theirs
NAMES = {"fr": "Français", "en": "English"}


def language_choice(current: str) -> QComboBox:
    box = QComboBox()
    box.setObjectName("Language")
    automatic = _("Automatique ({language})").format(language=NAMES[system_language()])
    box.addItem(automatic, "auto")
    for code, name in NAMES.items():
        box.addItem(name, code)
    box.setCurrentIndex(max(0, box.findData(current)))
    box.setAccessibleName(_("Langue"))
    return box
