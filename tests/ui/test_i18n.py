"""Qt's own dialogs follow Loki's language: qtbase_<lang>, and the few texts it lacks."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication

from loki_desktop.ui.main import install_qt_translations


def test_qt_speaks_french_too(qapp: QApplication) -> None:
    translator = install_qt_translations(qapp, "fr")
    assert translator is not None
    try:
        assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "Annuler"
        assert QCoreApplication.translate("QFileDialog", "Open") == "Ouvrir"
        # qtbase_fr lacks these two labels of the folder dialog: ui/qt_gaps.py fills them
        assert QCoreApplication.translate("QFileDialog", "&Look in:") == "&Regarder dans\u00a0:"
        assert QCoreApplication.translate("QFileDialog", "Directory:") == "Dossier\u00a0:"
        assert QCoreApplication.translate("QAbstractFileIconProvider", "Folder") == "Dossier"
    finally:
        for child in translator.children():
            qapp.removeTranslator(child)  # type: ignore[arg-type]
        qapp.removeTranslator(translator)


def test_english_loads_nothing(qapp: QApplication) -> None:
    assert install_qt_translations(qapp, "en") is None
    assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "Cancel"
