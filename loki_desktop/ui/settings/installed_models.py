"""Réglages → Modèles: the installed models and what each can do; pull, delete, the default.

Acts at once, like the MCP page: a pull or a deletion happens on the server, and *Utiliser
par défaut* is saved at once (the General page's field follows, so Save keeps it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from loki_desktop.core.i18n import _
from loki_desktop.core.llm.profiles import capability_marks
from loki_desktop.core.llm.pull import BadModelName, check_model_name, human_bytes
from loki_desktop.core.ports import BackendError, ModelInfo, ModelProfile
from loki_desktop.ui.models.download import PullPanel
from loki_desktop.ui.qt_helpers import OwnedTasks, button, label
from loki_desktop.ui.runtime import Runtime

COLUMNS = ("name", "size", "family", "quantization", "capabilities", "context")


class ModelsPage(QWidget):
    def __init__(self, runtime: Runtime, on_default: Callable[[str], None]) -> None:
        super().__init__()
        self.runtime = runtime
        self.on_default = on_default  # the General page's field follows
        self.tasks = OwnedTasks()
        self.names: list[str] = []
        self.confirmation: QMessageBox | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(10)
        layout.addWidget(label(_("Modèles"), "PageTitle"))
        self.intro = label("", "PageIntro", wrap=True)
        layout.addWidget(self.intro)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(
            [
                _("Modèle"),
                _("Taille"),
                _("Famille"),
                _("Paramètres"),
                _("Capacités"),
                _("Contexte max"),
            ]
        )
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # the capabilities take what is left (elided, whole in the tooltip): every column
        # stays in view and the name is never cut
        header.setSectionResizeMode(COLUMNS.index("capabilities"), QHeaderView.ResizeMode.Stretch)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setWordWrap(False)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        layout.addWidget(self.table, 1)
        actions = QHBoxLayout()
        self.default_button = button(_("Utiliser par défaut"))
        self.default_button.clicked.connect(self._make_default)
        self.delete_button = button(_("Supprimer…"), danger=True)
        self.delete_button.clicked.connect(self._confirm_delete)
        self.refresh_button = button(_("Actualiser"), flat=True)
        self.refresh_button.clicked.connect(self.refresh)
        for widget in (self.default_button, self.delete_button):
            actions.addWidget(widget)
        actions.addStretch(1)
        actions.addWidget(self.refresh_button)
        layout.addLayout(actions)
        self.status = label("", "CardDetail", wrap=True)
        layout.addWidget(self.status)
        pull_row = QHBoxLayout()
        self.pull_field = QLineEdit()
        self.pull_field.setPlaceholderText(_("nom:étiquette, par exemple qwen3:8b"))
        self.pull_field.setAccessibleName(_("Modèle à télécharger"))
        self.pull_field.returnPressed.connect(self._pull)
        pull_row.addWidget(self.pull_field, 1)
        self.pull_button = button(_("Télécharger"), primary=True)
        self.pull_button.clicked.connect(self._pull)
        pull_row.addWidget(self.pull_button)
        layout.addLayout(pull_row)
        self.downloads = PullPanel(runtime)
        self.downloads.finished.connect(lambda _name: self.refresh())
        layout.addWidget(self.downloads)
        self._selection_changed()

    # --- the list -----------------------------------------------------------------------

    def refresh(self) -> asyncio.Task[None]:
        return self.tasks.spawn(self._load())

    async def _load(self) -> None:
        self.intro.setText(
            _("Les modèles du serveur {host}. Lecture…").format(host=self.runtime.host)
        )
        try:
            models = await self.runtime.list_models()
            profiles = await self.runtime.model_profiles([m.name for m in models])
        except BackendError as exc:
            self.intro.setText(str(exc))
            self._fill([], {})
            return
        self.intro.setText(
            _(
                "Les modèles du serveur {host} : télécharger, supprimer, choisir celui par défaut."
            ).format(host=self.runtime.host)
        )
        self._fill(models, profiles)

    def _fill(self, models: list[ModelInfo], profiles: dict[str, ModelProfile]) -> None:
        default = self.runtime.settings.model
        self.names = [model.name for model in models]
        self.table.setRowCount(len(models))
        for row, model in enumerate(models):
            profile = profiles.get(model.name) or ModelProfile.assumed(model.name)
            name = ("★ " if model.name == default else "") + model.name
            context = (
                f"{profile.context_length:,}".replace(",", "\u202f")
                if profile.context_length
                else "?"
            )
            cells = (
                name,
                human_bytes(model.size) if model.size else "?",
                profile.family or "?",
                _size_and_quantization(model, profile),
                ", ".join(capability_marks(profile)),
                context,
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if column == 0 and model.name == default:
                    item.setToolTip(_("{name} : le modèle par défaut").format(name=text))
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                self.table.setItem(row, column, item)
        self._selection_changed()

    def selected(self) -> str:
        rows = self.table.selectionModel().selectedRows()
        return self.names[rows[0].row()] if rows else ""

    def select(self, name: str) -> None:
        self.table.selectRow(self.names.index(name))

    def _selection_changed(self) -> None:
        chosen = bool(self.selected())
        self.default_button.setEnabled(chosen)
        self.delete_button.setEnabled(chosen)

    # --- actions ------------------------------------------------------------------------

    def _make_default(self) -> None:
        name = self.selected()
        if not name:
            return
        self.runtime.settings.model = name
        self.runtime.save_settings()
        self.on_default(name)
        self.status.setText(_("« {name} » est le modèle par défaut.").format(name=name))
        self.refresh()

    def _confirm_delete(self) -> None:
        name = self.selected()
        if not name:
            return
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            _("Supprimer un modèle"),
            _(
                "Supprimer « {name} » du serveur ? Ses fichiers sont effacés ; il faudra le "
                "télécharger de nouveau pour s'en servir."
            ).format(name=name),
            parent=self,
        )
        delete = box.addButton(_("Supprimer"), QMessageBox.ButtonRole.DestructiveRole)
        keep = box.addButton(_("Garder"), QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(keep)  # Enter keeps: the safe choice
        box.buttonClicked.connect(lambda clicked: self._deleted_answer(name, clicked is delete))
        box.setWindowModality(Qt.WindowModality.WindowModal)
        self.confirmation = box
        box.open()

    def _deleted_answer(self, name: str, confirmed: bool) -> None:
        self.confirmation = None
        if confirmed:
            self.tasks.spawn(self._delete(name))

    async def _delete(self, name: str) -> None:
        try:
            await self.runtime.delete_model(name)
        except BackendError as exc:
            self.status.setText(str(exc))
            return
        self.status.setText(_("« {name} » est supprimé.").format(name=name))
        if self.runtime.settings.model == name:  # no default pointing at nothing
            self.runtime.settings.model = ""
            self.runtime.save_settings()
            self.on_default("")
        await self._load()

    def _pull(self) -> None:
        try:
            name = check_model_name(self.pull_field.text())
        except BadModelName as exc:
            self.status.setText(str(exc))
            return
        self.status.setText("")
        self.downloads.start(name)

    async def aclose(self) -> None:
        await self.tasks.cancel_all()
        await self.downloads.aclose()


def _size_and_quantization(model: ModelInfo, profile: ModelProfile) -> str:
    parts = (model.parameter_size or profile.parameter_size, profile.quantization)
    return " · ".join(part for part in parts if part) or "?"
