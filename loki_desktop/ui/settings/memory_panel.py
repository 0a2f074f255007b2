"""Réglages → Intelligence: the memories switch, the embedding model, and the memory panel
(list, search, add, edit, forget)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from loki_desktop.core.i18n import _
from loki_desktop.core.memory.recall import Memories
from loki_desktop.core.settings import Settings
from loki_desktop.ui.qt_helpers import OwnedTasks, button, label
from loki_desktop.ui.runtime import Runtime

LISTED = 5_000  # the panel lists this many of the newest (a search reaches the others)
SEARCHED = 50


class MemorySection(QWidget):
    """The part of the Intelligence page about memories; `apply` writes it into settings."""

    def __init__(self, runtime: Runtime) -> None:
        super().__init__()
        self.runtime = runtime
        settings = runtime.settings
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        # a check box cannot wrap its text: a short one, and what it means on a line that wraps
        self.enabled = QCheckBox(_("Souvenirs"))
        self.enabled.setObjectName("MemoriesEnabled")
        self.enabled.setChecked(settings.memories)
        layout.addWidget(self.enabled)
        layout.addWidget(
            label(
                _("Retenir ce que je demande (« retiens que… ») et le rappeler."),
                "FieldHelp",
                wrap=True,
            )
        )
        self.extraction = QCheckBox(_("Retenir à la fin d'une conversation"))
        self.extraction.setObjectName("MemoryExtraction")
        self.extraction.setChecked(settings.memory_extraction)
        layout.addWidget(self.extraction)
        layout.addWidget(
            label(_("Ce qu'elle m'apprend, montré, avec Oublier."), "FieldHelp", wrap=True)
        )
        self.index = QCheckBox(_("Index du dossier de travail"))
        self.index.setObjectName("WorkspaceIndex")
        self.index.setChecked(settings.workspace_index)
        layout.addWidget(self.index)
        layout.addWidget(
            label(_("L'outil search_workspace cherche dans ses fichiers."), "FieldHelp", wrap=True)
        )
        form = QFormLayout()
        self.embedding_model = QLineEdit(settings.embedding_model)
        self.embedding_model.setPlaceholderText(_("vide : le modèle intégré"))
        form.addRow(_("Modèle d'embeddings du serveur"), self.embedding_model)
        layout.addLayout(form)
        layout.addWidget(
            label(
                _(
                    "Sans ce modèle sur le serveur, Loki utilise son modèle intégré "
                    "(multilingue, sur cet ordinateur). Les souvenirs restent ici, dans "
                    "memories.db ; les secrets n'y sont jamais gardés."
                ),
                "FieldHelp",
                wrap=True,
            )
        )
        row = QHBoxLayout()
        self.manage = button(_("Gérer les souvenirs…"))
        self.manage.clicked.connect(self.open_panel)
        row.addWidget(self.manage)
        # the download goes through Réglages → Modèles (the dialog sets `pull`)
        self.download = button(_("Télécharger ce modèle sur le serveur"))
        self.download.clicked.connect(self._download)
        self.download.setVisible(runtime.server.kind == "ollama")
        row.addWidget(self.download)
        row.addStretch(1)
        self.pull: Callable[[str], None] | None = None
        layout.addLayout(row)
        self.panel: MemoryPanel | None = None

    def _download(self) -> None:
        name = self.embedding_model.text().strip()
        if name and self.pull is not None:
            self.pull(name)

    def apply(self, settings: Settings) -> None:
        settings.memories = self.enabled.isChecked()
        settings.memory_extraction = self.extraction.isChecked()
        settings.workspace_index = self.index.isChecked()
        settings.embedding_model = self.embedding_model.text().strip()

    def open_panel(self) -> MemoryPanel | None:
        memories = self.runtime.memories
        if memories is None:  # off, or no memory file here
            self.enabled.setFocus()
            return None
        self.panel = MemoryPanel(memories, self)
        self.panel.show()
        return self.panel


class MemoryPanel(QDialog):
    """What Loki remembers: search, add, edit (double-click), forget."""

    def __init__(self, memories: Memories, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("MemoryPanel")
        self.setWindowTitle(_("Souvenirs de Loki"))
        self.resize(640, 480)
        self.memories = memories
        self.tasks = OwnedTasks()
        layout = QVBoxLayout(self)
        self.search = QLineEdit()
        self.search.setPlaceholderText(_("Chercher dans les souvenirs…"))
        self.search.setClearButtonEnabled(True)
        self.search.returnPressed.connect(self.refresh)
        self.search.textChanged.connect(self._on_search_text)
        layout.addWidget(self.search)
        self.list = QListWidget()
        self.list.itemDoubleClicked.connect(lambda _item: self.edit_selected())
        layout.addWidget(self.list, 1)
        self.status = label("", "FieldHelp", wrap=True)
        layout.addWidget(self.status)
        row = QHBoxLayout()
        self.add_button = button(_("Ajouter…"))
        self.edit_button = button(_("Modifier…"))
        self.forget_button = button(_("Oublier"), danger=True)
        self.add_button.clicked.connect(self.add_new)
        self.edit_button.clicked.connect(self.edit_selected)
        self.forget_button.clicked.connect(self.forget_selected)
        for widget in (self.add_button, self.edit_button, self.forget_button):
            row.addWidget(widget)
        row.addStretch(1)
        close = button(_("Fermer"), primary=True)
        close.clicked.connect(self.accept)
        row.addWidget(close)
        layout.addLayout(row)
        self.finished.connect(lambda _result: self.tasks.cancel_soon())
        self.refresh()

    def _on_search_text(self, text: str) -> None:
        if not text:  # cleared: the whole list again
            self.refresh()

    # --- actions (each one a task: the store is read and written off the GUI thread) -------

    def refresh(self) -> None:
        self.tasks.spawn(self._refresh(self.search.text().strip()))

    def add_new(self) -> None:
        text, ok = QInputDialog.getMultiLineText(self, _("Nouveau souvenir"), _("Souvenir :"))
        if ok and text.strip():
            self.tasks.spawn(self._keep(None, text))

    def edit_selected(self) -> None:
        item = self.list.currentItem()
        if item is None:
            return
        text, ok = QInputDialog.getMultiLineText(
            self, _("Modifier le souvenir"), _("Souvenir :"), item.text()
        )
        if ok and text.strip() and text != item.text():
            self.tasks.spawn(self._keep(int(item.data(Qt.ItemDataRole.UserRole)), text))

    def forget_selected(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.tasks.spawn(self._forget(int(item.data(Qt.ItemDataRole.UserRole))))

    async def _refresh(self, query: str) -> None:
        if query:
            found = await self.memories.recall(query, SEARCHED)
            rows = [(item.id, item.text) for item in found.items]
        else:
            store = await asyncio.to_thread(self.memories.store)
            recent = await asyncio.to_thread(store.recent, LISTED)
            rows = [(memory.id, memory.text) for memory in recent]
        self.list.clear()
        for memory_id, text in rows:
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, memory_id)
            self.list.addItem(item)
        if not rows:
            self.status.setText(
                _("Aucun souvenir ne correspond.") if query else _("Aucun souvenir pour l'instant.")
            )
        else:
            self.status.setText("")

    async def _keep(self, memory_id: int | None, text: str) -> None:
        from loki_desktop.core.memory.remember import change, keep

        if memory_id is None:
            kept = await keep(self.memories, text, source="typed")
        else:
            kept = await change(self.memories, memory_id, text)
        await self._refresh(self.search.text().strip())
        self.status.setText(kept.refusal)

    async def _forget(self, memory_id: int) -> None:
        await self.memories.forget(memory_id)
        await self._refresh(self.search.text().strip())
        self.status.setText(_("Souvenir oublié."))
