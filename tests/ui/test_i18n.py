"""French text is extractable for translation: pyside6-lupdate finds it in the sources."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication

import loki_desktop.ui

UI = Path(loki_desktop.ui.__file__).parent
LUPDATE = shutil.which("pyside6-lupdate", path=str(Path(sys.executable).parent))


@pytest.mark.skipif(LUPDATE is None, reason="pyside6-lupdate is not installed with PySide6")
def test_texts_outside_widgets_are_found_by_lupdate(tmp_path: Path) -> None:
    assert LUPDATE is not None
    catalogue = tmp_path / "loki_fr.ts"
    subprocess.run(
        [LUPDATE, str(UI / "conversations.py"), str(UI / "main.py"), "-ts", str(catalogue)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    sources = catalogue.read_text(encoding="utf-8")
    # how long ago a conversation changed, and the months of older ones
    for text in ("à l'instant", "il y a {n} min", "il y a {n} h", "hier", "janv.", "déc."):
        assert f"<source>{text.replace(chr(39), '&apos;')}</source>" in sources, text
    # what a second launch prints when the running Loki does not answer
    assert "Loki est déjà ouvert mais ne répond pas." in sources


def test_qt_speaks_french_too(qapp: QApplication) -> None:
    from loki_desktop.ui.main import install_qt_french

    translator = install_qt_french(qapp)
    assert translator is not None
    try:
        assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "Annuler"
        assert QCoreApplication.translate("QFileDialog", "Open") == "Ouvrir"
    finally:
        qapp.removeTranslator(translator)
