"""Settings in a readable JSON file, changed only by read-modify-write under one lock."""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import filelock

from loki_desktop.core.bounded_read import FileTooBig, NotRegularFile, read_bounded
from loki_desktop.core.files import atomic_write
from loki_desktop.core.i18n import _
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.aside import move_aside

log = logging.getLogger(__name__)

# A holder keeps the lock for one read, one small write and an fsync (milliseconds); past
# this the lock is taken to be stuck (a frozen process) and the change is written anyway.
LOCK_TIMEOUT_S = 10.0
# Far past any real settings file (a few KB, MCP servers included): a bigger one is damaged.
MAX_SETTINGS_BYTES = 4_000_000

# One lock per file for the threads of this process (the window's loop and the MCP service's
# edit threads), whatever the OS lock below does on the file system at hand.
_THREAD_LOCKS: dict[Path, threading.Lock] = {}
_THREAD_LOCKS_GUARD = threading.Lock()


class SettingsFile:
    """SettingsStore over one JSON file.

    Every change goes through `update`: the file is read, changed and written back while
    this process's lock and an OS lock on `<file>.lock` are held, so a writer in another
    thread or process (the CLI while the window is open) never loses another's change.
    The lock is on a side file because the atomic write replaces settings.json itself.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._notices: list[str] = []

    def load(self) -> Settings:
        return self._read()[0]

    def _read(self) -> tuple[Settings, dict[str, Any]]:
        """The settings, and the file's keys this version does not know (kept as they are)."""
        try:
            data = parse_settings(read_bounded(self.path, MAX_SETTINGS_BYTES))
        except FileNotFoundError:
            return Settings(), {}
        except (OSError, ValueError) as exc:
            return self._unreadable(exc)
        settings, notices = Settings.from_json(data)
        # the file is read on every change: the same notice is pending once, not once a read
        self._notices += [notice for notice in notices if notice not in self._notices]
        known = settings.to_json().keys()
        return settings, {key: value for key, value in data.items() if key not in known}

    def _unreadable(self, exc: OSError | ValueError) -> tuple[Settings, dict[str, Any]]:
        """Move the damaged file (or folder, or link to a device) aside, with a notice."""
        kept = move_aside(self.path)
        self._notices.append(
            _(
                "Le fichier de réglages était illisible ({reason}) : il a été mis de côté "
                "dans {kept} et les réglages par défaut sont utilisés."
            ).format(reason=unreadable_reason(exc), kept=kept.name)
        )
        return Settings(), {}

    def update(self, change: Callable[[Settings], None]) -> Settings:
        """Read the file, apply `change`, write the result; all under the lock. A change
        that raises writes nothing. Returns the settings written."""
        with self._locked():
            settings, unknown = self._read()
            change(settings)
            # a key of a newer version (or a person's own) stays in the file
            self._write(settings, unknown)
            return settings

    def save(self, settings: Settings) -> None:
        """Replace the whole file (a starting state: first run, tests); under the lock too."""
        with self._locked():
            self._write(settings)

    def _write(self, settings: Settings, unknown: dict[str, Any] | None = None) -> None:
        content = {**(unknown or {}), **settings.to_json()}
        text = json.dumps(content, indent=2, ensure_ascii=False, sort_keys=True)
        atomic_write(self.path, (text + "\n").encode("utf-8"))

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        with _THREAD_LOCKS_GUARD:
            in_process = _THREAD_LOCKS.setdefault(self.path.resolve(), threading.Lock())
        with in_process:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            other_processes = filelock.FileLock(
                self.path.with_name(self.path.name + ".lock"), timeout=LOCK_TIMEOUT_S
            )
            try:
                other_processes.acquire()
            except filelock.Timeout:
                log.warning("settings lock held for %s s: writing without it", LOCK_TIMEOUT_S)
                yield
                return
            try:
                yield
            finally:
                other_processes.release()

    def take_notices(self) -> list[str]:
        notices, self._notices = self._notices, []
        return notices


def read_language(path: Path) -> str:
    """The "language" setting, read before anything else is translated; "auto" when the file
    is missing or unreadable (load() reports that later, in the language chosen)."""
    try:
        data = parse_settings(read_bounded(path, MAX_SETTINGS_BYTES))
    except (OSError, ValueError):
        return "auto"
    value = data.get("language")
    return value if isinstance(value, str) else "auto"


def parse_settings(raw: bytes) -> dict[str, Any]:
    """The JSON object of a settings file; ValueError (with a sentence) for anything else."""
    try:
        # utf-8-sig: a byte order mark (Windows Notepad) is read, not taken for corruption;
        # bytes that are not UTF-8 raise UnicodeDecodeError, a ValueError like bad JSON
        data = json.loads(raw.decode("utf-8-sig"))
    except RecursionError:  # nested deeper than the parser goes (hand-made, or an attack)
        raise ValueError(_("imbrication trop profonde")) from None
    if not isinstance(data, dict):
        raise ValueError(_("le premier niveau n'est pas un objet"))
    return data


def unreadable_reason(exc: OSError | ValueError) -> str:
    """Why the settings file could not be read, in the person's words."""
    if isinstance(exc, UnicodeDecodeError):
        return _("ce n'est pas du texte UTF-8 : octet invalide à la position {at}").format(
            at=exc.start
        )
    if isinstance(exc, FileTooBig):
        return _("plus de {n} Mo").format(n=MAX_SETTINGS_BYTES // 1_000_000)
    if isinstance(exc, IsADirectoryError):
        return _("c'est un dossier, pas un fichier")
    if isinstance(exc, NotRegularFile):
        return _("ce n'est pas un fichier ordinaire (un tube, une socket ou un périphérique)")
    if isinstance(exc, OSError):
        return exc.strerror or type(exc).__name__
    return str(exc)
