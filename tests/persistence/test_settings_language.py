"""The language setting is read before anything is translated, and never breaks a start."""

from __future__ import annotations

from pathlib import Path

import pytest

from loki_desktop.persistence.settings_file import SettingsFile, read_language


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "auto"),
        ('{"language": "en"}', "en"),
        ('{"language": "fr", "model": "x"}', "fr"),
        ('{"language": 3}', "auto"),
        ("not json", "auto"),
        ("[]", "auto"),
    ],
)
def test_read_language(tmp_path: Path, content: str | None, expected: str) -> None:
    path = tmp_path / "settings.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert read_language(path) == expected
    # reading it moves nothing aside: load() reports a broken file later, translated
    assert path.exists() == (content is not None)


def test_an_unknown_language_keeps_the_default(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"language": "de"}', encoding="utf-8")
    store = SettingsFile(path)
    assert store.load().language == "auto"
    assert any("« de »" in notice for notice in store.take_notices())
