"""Qt texts that Qt's own French catalogue (qtbase_fr) lacks, filled from ours.

qtbase_fr translates "Look in:" but not the "&Look in:" and "Files of &type:" labels that
QFileDialog shows, nor the Type column's "Folder", so the folder dialog spoke half English.
This translator answers for those few (the French is Loki's, extracted with the rest) and
leaves every other text to Qt's catalogue.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTranslator

from loki_desktop.core.i18n import N_, _

# (Qt's context, Qt's English source) -> Loki's French (translated back by the catalogue)
GAPS = {
    ("QFileDialog", "&Look in:"): N_("&Regarder dans\u00a0:"),
    ("QFileDialog", "Files of &type:"): N_("Fichiers de &type\u00a0:"),
    # the Type column of the file dialog (Qt 6 moved these to a context qtbase_fr lacks)
    ("QAbstractFileIconProvider", "Folder"): N_("Dossier"),
    ("QAbstractFileIconProvider", "File"): N_("Fichier"),
    ("QAbstractFileIconProvider", "Drive"): N_("Lecteur"),
    ("QAbstractFileIconProvider", "Computer"): N_("Ordinateur"),
    ("QAbstractFileIconProvider", "%1 File"): N_("Fichier %1"),
}


class QtGaps(QTranslator):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)

    def translate(  # Qt's virtual, called for every tr() of Qt's own widgets
        self, context: str, source: str, disambiguation: str | None = None, n: int = -1
    ) -> str | None:
        text = GAPS.get((context, source))
        # None is a null QString: Qt then asks the next catalogue (qtbase_fr); "" would not
        return _(text) if text is not None else None

    def isEmpty(self) -> bool:
        return False
