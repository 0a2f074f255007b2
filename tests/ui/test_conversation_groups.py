"""The sidebar grouped by workspace folder with pins and a folder filter; exporting from the
window (the conversation's menu, Ctrl+Shift+E); the window's title."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from loki_desktop.core.messages import ChatMessage
from loki_desktop.core.services import Services
from tests.fakes.ollama_server import FakeOllama
from tests.ui.helpers import open_window, wait_until


def seed_folders(services: Services, tmp_path: Path) -> dict[str, str]:
    """Two projects and a conversation without a folder; returns title -> id."""
    store = services.open_history()
    ids = {}
    for title, folder in (
        ("Sans projet", None),
        ("Bug du parseur", tmp_path / "parseur"),
        ("Site web", tmp_path / "site"),
        ("Tests du parseur", tmp_path / "parseur"),
    ):
        if folder is not None:
            folder.mkdir(exist_ok=True)
        conversation = store.create(title, str(folder) if folder else None)
        store.append(conversation, ChatMessage("user", f"Question : {title}"))
        store.append(conversation, ChatMessage("assistant", "Réponse."))
        ids[title] = conversation
    store.close()
    return ids


def dialogs() -> list[QFileDialog]:
    return [
        w for w in QApplication.topLevelWidgets() if isinstance(w, QFileDialog) and w.isVisible()
    ]


async def test_grouped_by_folder_pinned_first_and_filtered_to_this_folder(
    services: Services, ollama: FakeOllama, qtbot: Any, tmp_path: Path
) -> None:
    ids = seed_folders(services, tmp_path)
    async with open_window(services, qtbot, ollama.url) as window:
        listing = window.conversations
        # latest first: its folder's group comes first, each group keeps the latest first
        assert listing.headers() == ["parseur", "site", "Sans dossier"]
        assert listing.ids() == [
            ids["Tests du parseur"],
            ids["Bug du parseur"],
            ids["Site web"],
            ids["Sans projet"],
        ]

        menu = listing.menu_for(ids["Site web"], pinned=False)
        (pin,) = [a for a in menu.actions() if a.text() == "Épingler"]
        pin.trigger()
        assert listing.headers() == ["Épinglées", "parseur", "Sans dossier"]
        assert listing.ids()[0] == ids["Site web"]
        menu = listing.menu_for(ids["Site web"], pinned=True)
        assert menu.actions()[0].text() == "Désépingler"

        # a header is a caption: the arrows skip it, selecting opens nothing
        listing.list.setCurrentRow(0)
        assert window.sessions.current is None

        window.workspace_picker.choose(str(tmp_path / "parseur"))
        listing.this_folder.setChecked(True)
        assert listing.ids() == [ids["Tests du parseur"], ids["Bug du parseur"]]
        assert listing.headers() == []  # one folder, nothing pinned in it: no captions
        listing.this_folder.setChecked(False)
        assert len(listing.ids()) == 4


async def test_export_from_the_window_proposes_the_title_and_writes_the_file(
    services: Services, ollama: FakeOllama, qtbot: Any, tmp_path: Path
) -> None:
    ids = seed_folders(services, tmp_path)
    async with open_window(services, qtbot, ollama.url) as window:
        window.conversations.select(ids["Site web"])
        window.sessions.open_conversation(ids["Site web"])
        assert window.windowTitle() == "Site web — Loki"

        qtbot.keyClick(
            window,
            Qt.Key.Key_E,
            Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
        )
        await wait_until(lambda: len(dialogs()) == 1, what="the save dialog")
        (dialog,) = dialogs()
        assert Path(dialog.selectedFiles()[0]).name == "Site web.md"
        target = tmp_path / "exports" / "Site web.md"
        target.parent.mkdir()
        dialog.selectFile(str(target))
        dialog.accept()
        await wait_until(target.exists, what="the export")
        text = target.read_text()
        assert text.startswith("# Site web\n")
        assert "Question : Site web" in text

        # from another conversation's menu, as JSON, into a folder that is a file: a sentence
        (tmp_path / "un-fichier").write_text("")
        menu = window.conversations.menu_for(ids["Sans projet"], pinned=False)
        (export,) = [a for a in menu.actions() if a.text().startswith("Exporter…")]
        export.trigger()
        await wait_until(lambda: len(dialogs()) == 1, what="the save dialog")
        (dialog,) = dialogs()
        assert Path(dialog.selectedFiles()[0]).name == "Sans projet.md"
        dialog.selectFile(str(tmp_path / "un-fichier" / "x.json"))
        dialog.accept()

        def warning() -> QMessageBox | None:
            boxes = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox)]
            return next((b for b in boxes if b.isVisible()), None)

        await wait_until(lambda: warning() is not None, what="the warning")
        box = warning()
        assert box is not None
        assert "aucun fichier n'a été laissé à moitié écrit" in box.text()
        box.close()
