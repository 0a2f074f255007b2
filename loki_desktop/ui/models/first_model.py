"""The first-run choice of a model: a few that fit this machine, each one click to download."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QGridLayout, QHBoxLayout, QLineEdit, QVBoxLayout, QWidget

from loki_desktop.core.i18n import _
from loki_desktop.core.llm.machine import Machine
from loki_desktop.core.llm.pull import BadModelName, check_model_name, human_bytes
from loki_desktop.core.llm.suggestions import fit_text, fitting_models, strengths_text
from loki_desktop.ui.qt_helpers import button, label


class FirstModelPanel(QFrame):
    """Shown on the welcome page while the server has no model. `pull_requested(name)`."""

    pull_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Card")
        self.setMaximumWidth(760)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 14, 16, 14)
        layout.setSpacing(8)
        layout.addWidget(label(_("Premier modèle"), "CardTitle"))
        self.machine_text = label("", "Muted", wrap=True)
        layout.addWidget(self.machine_text)
        self.grid = QGridLayout()
        self.grid.setHorizontalSpacing(12)
        self.grid.setVerticalSpacing(6)
        layout.addLayout(self.grid)
        other = QHBoxLayout()
        self.name_field = QLineEdit()
        self.name_field.setPlaceholderText(_("ou un autre nom, par exemple mistral:7b"))
        self.name_field.setAccessibleName(_("Nom du modèle à télécharger"))
        self.name_field.returnPressed.connect(self._pull_typed)
        other.addWidget(self.name_field, 1)
        typed = button(_("Télécharger"))
        typed.clicked.connect(self._pull_typed)
        other.addWidget(typed)
        layout.addLayout(other)
        self.error = label("", "ErrorText", wrap=True)
        self.error.hide()
        layout.addWidget(self.error)
        self.pull_buttons: dict[str, QWidget] = {}
        self.hide()

    def show_for(self, machine: Machine) -> None:
        """Fill the list for this machine and show the panel."""
        self.machine_text.setText(
            _("Cet ordinateur : {machine}. Modèles qui lui conviennent :").format(
                machine=machine.describe()
            )
        )
        while self.grid.count():
            item = self.grid.takeAt(0)
            if item is not None and (widget := item.widget()) is not None:
                widget.deleteLater()
        self.pull_buttons.clear()
        for row, fitting in enumerate(fitting_models(machine)):
            model = fitting.model
            tools = _("outils natifs") if model.native_tools else _("outils par Loki")
            name = label(f"<b>{model.name}</b>")
            name.setTextFormat(Qt.TextFormat.RichText)
            facts = label(
                f"{human_bytes(model.download)} · {strengths_text(model)} · {tools} · "
                f"{fit_text(fitting.fit, machine)}<br>{model.summary}",
                "Muted",
                wrap=True,
            )
            facts.setTextFormat(Qt.TextFormat.RichText)
            pull = button(_("Télécharger"), primary=row == 0)
            pull.setAccessibleName(_("Télécharger {model}").format(model=model.name))
            pull.clicked.connect(lambda _c=False, n=model.name: self.pull_requested.emit(n))
            self.grid.addWidget(name, row, 0, Qt.AlignmentFlag.AlignTop)
            self.grid.addWidget(facts, row, 1)
            self.grid.addWidget(pull, row, 2, Qt.AlignmentFlag.AlignTop)
            self.pull_buttons[model.name] = pull
        self.grid.setColumnStretch(1, 1)
        self.show()

    def set_busy(self, busy: bool) -> None:
        """While a pull runs, another cannot start from here."""
        for widget in self.pull_buttons.values():
            widget.setEnabled(not busy)

    def _pull_typed(self) -> None:
        try:
            name = check_model_name(self.name_field.text())
        except BadModelName as exc:
            self.error.setText(str(exc))
            self.error.show()
            return
        self.error.hide()
        self.pull_requested.emit(name)
