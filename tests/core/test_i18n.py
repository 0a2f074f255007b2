"""One mechanism, two languages: the language chosen, plurals, and a complete English catalogue."""

from __future__ import annotations

import gettext
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from loki_desktop.core import i18n
from loki_desktop.core.i18n import _, ngettext, set_language, system_language

REPO = Path(__file__).resolve().parents[2]
LOCALE = REPO / "resources" / "locale"
PO = LOCALE / "en" / "LC_MESSAGES" / "loki-desktop.po"
MO = PO.with_suffix(".mo")
PLACEHOLDER = re.compile(r"\{(\w*)[^{}]*\}")


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"LANG": "fr_FR.UTF-8"}, "fr"),
        ({"LANG": "en_GB.UTF-8"}, "en"),
        ({"LANGUAGE": "en_US:fr", "LANG": "fr_FR.UTF-8"}, "en"),
        ({"LC_ALL": "fr_CA.UTF-8", "LANG": "en_US.UTF-8"}, "fr"),
        ({"LC_MESSAGES": "en_US.UTF-8", "LANG": "fr_FR.UTF-8"}, "en"),
        # a language Loki does not speak: English, the more widely read
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({"LANGUAGE": "de:fr", "LANG": "de_DE.UTF-8"}, "fr"),
        # no locale at all: the source language
        ({"LANG": "C.UTF-8"}, "fr"),
        ({}, "fr"),
    ],
)
def test_the_system_language(environ: dict[str, str], expected: str) -> None:
    assert system_language(environ) == expected


def test_the_setting_overrides_the_system() -> None:
    assert set_language("en", {"LANG": "fr_FR.UTF-8"}) == "en"
    assert _("Réglages") == "Settings"
    assert set_language("fr", {"LANG": "en_US.UTF-8"}) == "fr"
    assert _("Réglages") == "Réglages"
    assert set_language("auto", {"LANG": "en_US.UTF-8"}) == "en"
    assert i18n.language() == "en"


def test_plurals_follow_each_language() -> None:
    def results(n: int) -> str:
        return ngettext("{n} résultat", "{n} résultats", n).format(n=n)

    assert [results(n) for n in (0, 1, 2)] == ["0 résultat", "1 résultat", "2 résultats"]
    set_language("en")
    assert [results(n) for n in (0, 1, 2)] == ["0 results", "1 result", "2 results"]


def _extracted() -> dict[str, tuple[str, ...]]:
    """Every message of the sources, as pybabel extracts them (make i18n)."""
    found: dict[str, tuple[str, ...]] = {}
    method_map = [("loki_desktop/**.py", "python")]
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(REPO), method_map=method_map
    ):
        ids = (message,) if isinstance(message, str) else tuple(message)
        found[ids[0]] = ids
    return found


def test_the_english_catalogue_covers_every_message() -> None:
    """A string added with _() and not translated fails here: run `make i18n`, translate
    the new entries of the .po, run `make i18n` again (it compiles the .mo)."""
    with PO.open("rb") as handle:
        catalogue = read_po(handle)
    translated = {}
    for message in catalogue:
        if not message.id:
            continue
        key = message.id if isinstance(message.id, str) else message.id[0]
        strings = (message.string,) if isinstance(message.string, str) else message.string
        if all(strings) and not message.fuzzy:
            translated[key] = strings
    missing = sorted(set(_extracted()) - set(translated))
    assert not missing, f"untranslated in {PO.name} (make i18n): {missing}"


def test_translations_keep_every_placeholder() -> None:
    with PO.open("rb") as handle:
        catalogue = read_po(handle)
    wrong = []
    for message in catalogue:
        if not message.id:
            continue
        ids = (message.id,) if isinstance(message.id, str) else message.id
        strings = (message.string,) if isinstance(message.string, str) else message.string
        wanted = set(PLACEHOLDER.findall(ids[-1]))
        if any(set(PLACEHOLDER.findall(text)) != wanted for text in strings):
            wrong.append(ids[0])
    assert not wrong


def test_the_compiled_catalogue_is_up_to_date() -> None:
    """The .mo is committed (an editable install and the bundle load it as it is): it must say
    what the .po says."""
    with PO.open("rb") as handle:
        catalogue = read_po(handle)
    with MO.open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    stale = []
    for message in catalogue:
        if not message.id or message.fuzzy:
            continue
        if isinstance(message.id, str):
            if compiled.gettext(message.id) != message.string:
                stale.append(message.id)
        elif compiled.ngettext(message.id[0], message.id[1], 2) != message.string[1]:
            stale.append(message.id[0])
    assert not stale, "run `make i18n` to compile the .mo"


def test_french_typography_in_the_window_only() -> None:
    """The window turns it on (app.run_window): « » and : ; ! ? hold to their words."""
    message = "Le modèle « {model} » n'est pas installé sur {host}."
    assert _(message) == message  # the CLI: plain spaces, as scripts read them
    i18n.set_typography(True)
    assert _(message) == "Le modèle «\u00a0{model}\u00a0» n'est pas installé sur {host}."
    assert _("Dossier : {name}") == "Dossier\u00a0: {name}"
    set_language("en")
    assert _("Dossier : {name}") == "Folder: {name}"
