"""Settings in a readable JSON file, written atomically; a corrupt file is moved aside."""

from __future__ import annotations

import json
from pathlib import Path

from loki_desktop.core.files import atomic_write
from loki_desktop.core.i18n import _
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.aside import move_aside


class SettingsFile:
    """SettingsStore over one JSON file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._notices: list[str] = []

    def load(self) -> Settings:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return Settings()
        try:
            # utf-8-sig: a byte order mark (Windows Notepad) is read, not taken for corruption;
            # bytes that are not UTF-8 raise UnicodeDecodeError, a ValueError like bad JSON
            data = json.loads(raw.decode("utf-8-sig"))
            if not isinstance(data, dict):
                raise ValueError(_("le premier niveau n'est pas un objet"))
        except ValueError as exc:
            reason = str(exc)
            if isinstance(exc, UnicodeDecodeError):
                reason = _("ce n'est pas du texte UTF-8 : octet invalide à la position {at}")
                reason = reason.format(at=exc.start)
            kept = move_aside(self.path)
            self._notices.append(
                _(
                    "Le fichier de réglages était illisible ({reason}) : il a été mis de côté "
                    "dans {kept} et les réglages par défaut sont utilisés."
                ).format(reason=reason, kept=kept.name)
            )
            return Settings()
        settings, notices = Settings.from_json(data)
        self._notices += notices
        return settings

    def save(self, settings: Settings) -> None:
        text = json.dumps(settings.to_json(), indent=2, ensure_ascii=False, sort_keys=True)
        atomic_write(self.path, (text + "\n").encode("utf-8"))

    def take_notices(self) -> list[str]:
        notices, self._notices = self._notices, []
        return notices


def read_language(path: Path) -> str:
    """The "language" setting, read before anything else is translated; "auto" when the file
    is missing or unreadable (load() reports that later, in the language chosen)."""
    try:
        data = json.loads(path.read_bytes().decode("utf-8-sig"))
    except (OSError, ValueError):
        return "auto"
    value = data.get("language") if isinstance(data, dict) else None
    return value if isinstance(value, str) else "auto"
