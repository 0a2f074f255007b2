"""Exporting a conversation from the window: a save dialog that proposes `<title>.md`, then
the file written whole (core.export), or one sentence saying why not."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from loki_desktop.core.export.formats import (
    ExportFailed,
    Format,
    default_name,
    render,
    write,
)
from loki_desktop.core.i18n import _
from loki_desktop.core.ports import ConversationStore, StoreUnavailable


def _filters() -> dict[str, Format]:
    """The dialog's filters (translated when shown) and the format each writes."""
    return {
        _("Markdown (*.md)"): "md",
        _("JSON sans perte, réimportable (*.json)"): "json",
        _("Page HTML autonome (*.html)"): "html",
    }


def format_of(path: Path, chosen_filter: str) -> Format:
    """The format a name asks for by its extension, else the one of the filter chosen."""
    by_suffix: dict[str, Format] = {".md": "md", ".json": "json", ".html": "html", ".htm": "html"}
    return by_suffix.get(path.suffix.lower(), _filters().get(chosen_filter, "md"))


def ask_and_export(
    parent: QWidget,
    store: ConversationStore,
    conversation_id: str,
    title: str,
    secrets: Callable[[], Sequence[str]],
    folder: Path | None = None,
) -> QFileDialog:
    """Open the save dialog (non-blocking: a running turn goes on) and export on accept."""
    dialog = QFileDialog(parent, _("Exporter la conversation"))
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)  # the same everywhere
    dialog.setNameFilters(list(_filters()))
    dialog.setDirectory(str(folder or Path.home()))
    dialog.selectFile(default_name(title, "md"))

    def chosen(name: str) -> None:
        path = Path(name)
        error = export_to(
            store, conversation_id, path, format_of(path, dialog.selectedNameFilter()), secrets()
        )
        if error is not None:
            box = QMessageBox(
                QMessageBox.Icon.Warning, _("Export impossible"), error, parent=parent
            )
            box.open()

    dialog.fileSelected.connect(chosen)
    dialog.finished.connect(lambda _result: dialog.deleteLater())
    dialog.open()
    return dialog


def export_to(
    store: ConversationStore,
    conversation_id: str,
    path: Path,
    fmt: Format,
    secrets: Sequence[str] = (),
) -> str | None:
    """Write the export; the sentence that says why it could not be (None: written)."""
    try:
        write(path, render(store.export(conversation_id), fmt, secrets))
    except (ExportFailed, StoreUnavailable) as exc:
        return str(exc)
    except OSError as exc:  # an image file of the conversation went missing
        return _(
            "Une image de la conversation est illisible ({error}) : rien n'a été écrit."
        ).format(error=exc)
    return None
