"""Réglages → Modèles: the installed models with what each can do; pull, delete, default."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from loki_desktop.core.services import Services
from loki_desktop.ui.settings.dialog import SettingsDialog
from loki_desktop.ui.settings.installed_models import COLUMNS, ModelsPage
from tests.fakes.ollama_server import FakeOllama
from tests.ui.helpers import open_window, wait_until


def cell(page: ModelsPage, name: str, column: str) -> str:
    item = page.table.item(page.names.index(name), COLUMNS.index(column))
    assert item is not None
    return item.text()


@contextlib.asynccontextmanager
async def models_page(
    services: Services, qtbot: Any
) -> AsyncIterator[tuple[SettingsDialog, FakeOllama]]:
    """Réglages → Modèles over the scripted server's two models, listed; closed after."""
    with FakeOllama() as server:
        async with open_window(services, qtbot, server.url) as window:
            dialog = window.settings_opener.open()
            dialog.show_page("models")
            await wait_until(lambda: len(dialog.models.names) == 2, what="the models are listed")
            try:
                yield dialog, server
            finally:
                dialog.reject()


def click_in(box: QMessageBox, text: str, qtbot: Any) -> None:
    (chosen,) = [b for b in box.buttons() if b.text() == text]
    qtbot.mouseClick(chosen, Qt.MouseButton.LeftButton)


async def test_the_page_lists_models_and_sets_the_default(services: Services, qtbot: Any) -> None:
    async with models_page(services, qtbot) as (dialog, server):
        page = dialog.models
        assert cell(page, "llama3.1:8b", "capabilities") == "outils"
        assert cell(page, "llama3.1:8b", "quantization") != "?"
        expected_context = f"{server.context_length:,}".replace(",", "\u202f")
        assert cell(page, "llama3.1:8b", "context") == expected_context
        assert not page.default_button.isEnabled()  # nothing selected yet
        page.select("llama3.1:8b")
        qtbot.mouseClick(page.default_button, Qt.MouseButton.LeftButton)
        assert services.settings.load().model == "llama3.1:8b"
        assert dialog.general.model.currentText() == "llama3.1:8b"  # Save keeps it
        await wait_until(lambda: cell(page, "llama3.1:8b", "name") == "★ llama3.1:8b")


async def test_delete_asks_first_and_keep_is_the_default(services: Services, qtbot: Any) -> None:
    async with models_page(services, qtbot) as (dialog, server):
        page = dialog.models
        page.select("llama3.1:8b")
        qtbot.mouseClick(page.delete_button, Qt.MouseButton.LeftButton)
        box = page.confirmation
        assert box is not None
        assert box.defaultButton().text() == "Garder"
        click_in(box, "Garder", qtbot)
        assert "llama3.1:8b" in server.models
        qtbot.mouseClick(page.delete_button, Qt.MouseButton.LeftButton)
        assert page.confirmation is not None
        click_in(page.confirmation, "Supprimer", qtbot)
        await wait_until(lambda: page.names == ["qwen2.5-coder:7b"])
        assert "llama3.1:8b" not in server.models
        assert "est supprimé" in page.status.text()


async def test_pull_from_the_page_adds_the_model(services: Services, qtbot: Any) -> None:
    async with models_page(services, qtbot) as (dialog, _server):
        page = dialog.models
        page.pull_field.setText("pas un nom !")
        qtbot.mouseClick(page.pull_button, Qt.MouseButton.LeftButton)
        assert "n'est pas un nom de modèle" in page.status.text()
        page.pull_field.setText("qwen3:8b")
        qtbot.mouseClick(page.pull_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: "qwen3:8b" in page.names, 30)
        assert "est prêt" in page.downloads.detail.text()
