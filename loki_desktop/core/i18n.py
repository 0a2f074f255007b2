"""The one translation mechanism of Loki (gettext, domain "loki-desktop", French source text).

Every sentence a person reads — core, persistence, CLI and window — goes through `_()`,
`ngettext()` (a count in the sentence) or `pgettext()` (a word whose meaning needs context).
The source language is French: with French chosen, gettext returns the source text as it is.
English comes from resources/locale/en/LC_MESSAGES/loki-desktop.mo, compiled from the .po
beside it by `make i18n` and committed (so an editable install, the wheel and the bundle all
find it without a build step). `N_()` only marks text for extraction; it is translated where
it is shown (module-level tables would otherwise freeze the language of the first import).

The language: `set_language()` once at start-up (app.main), from the setting ("auto", "fr",
"en"); "auto" reads the system locale (LANGUAGE, LC_ALL, LC_MESSAGES, LANG).
"""

from __future__ import annotations

import gettext
import locale
import os
import re
import sys
from collections.abc import Mapping
from importlib import resources

DOMAIN = "loki-desktop"
SOURCE_LANGUAGE = "fr"
LANGUAGES = ("fr", "en")
# the setting's values: "auto" follows the system
CHOICES = ("auto", *LANGUAGES)
_LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
_NO_LANGUAGE = {"", "c", "posix"}

_LOCALE_DIR = str(resources.files("loki_desktop.resources").joinpath("locale"))
_translation: gettext.NullTranslations = gettext.NullTranslations()
_language = SOURCE_LANGUAGE
_typography = False
# French typography: a non-breaking space inside « » and before : ; ! ? (a line never
# starts with the mark). Sources keep plain spaces, easier to type and to read.
_BEFORE_MARK = re.compile(r" ([:;!?»])")


def _(message: str) -> str:
    return typeset(_translation.gettext(message))


def N_(message: str) -> str:  # the gettext convention xgettext and pybabel know
    """Marks `message` for extraction only: translate it with `_()` where it is shown."""
    return message


def ngettext(singular: str, plural: str, count: int) -> str:
    if _language == SOURCE_LANGUAGE:
        return typeset(singular if count <= 1 else plural)  # French: 0 and 1 are singular
    return _translation.ngettext(singular, plural, count)


def pgettext(context: str, message: str) -> str:
    return typeset(_translation.pgettext(context, message))


def set_typography(on: bool) -> None:
    """French typography in what `_()` returns (the window turns it on: its lines wrap; the
    CLI's output, read by scripts, keeps plain spaces)."""
    global _typography
    _typography = on


def typeset(text: str) -> str:
    """`text` with French typography when it is on (for French text from elsewhere: skills)."""
    if not (_typography and _language == "fr"):
        return text
    return _BEFORE_MARK.sub("\u00a0\\1", text.replace("« ", "«\u00a0"))


def language() -> str:
    """The language in use: "fr" or "en"."""
    return _language


def set_language(choice: str | None, environ: Mapping[str, str] | None = None) -> str:
    """Use `choice` ("auto", "fr" or "en"; anything else counts as "auto"); returns the
    language now in use."""
    global _translation, _language
    chosen = choice if choice in LANGUAGES else system_language(environ)
    _language = chosen
    if chosen == SOURCE_LANGUAGE:
        _translation = gettext.NullTranslations()
    else:
        # fallback: a message missing from the catalogue shows in French rather than failing
        _translation = gettext.translation(
            DOMAIN, localedir=_LOCALE_DIR, languages=[chosen], fallback=True
        )
    return chosen


def system_language(environ: Mapping[str, str] | None = None) -> str:
    """The system's language among ours: the first of LANGUAGE's list, LC_ALL, LC_MESSAGES,
    LANG that is French or English. A system in another language gets English (more widely
    read than French); no locale at all (C, POSIX, unset) gets French, the source."""
    env = os.environ if environ is None else environ
    asked = [item for name in _LOCALE_VARIABLES for item in env.get(name, "").split(":")]
    nothing = not any(_code(item) not in _NO_LANGUAGE for item in asked)
    if nothing and environ is None and sys.platform == "win32":
        # Windows sets no variable; elsewhere getlocale() would turn C.UTF-8 into en_US
        asked.append(locale.getlocale()[0] or "")
    codes = [code for code in map(_code, asked) if code not in _NO_LANGUAGE]
    supported = [code for code in codes if code in LANGUAGES]
    if supported:
        return supported[0]
    return "en" if codes else SOURCE_LANGUAGE


def _code(item: str) -> str:
    """ "fr_CA.UTF-8@euro" -> "fr"; Windows' "French_France" -> "fr" too."""
    code = item.split(".")[0].split("@")[0].split("_")[0].split("-")[0].strip().lower()
    return _WINDOWS.get(code, code)


_WINDOWS = {"french": "fr", "english": "en"}
