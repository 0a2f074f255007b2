"""The window's arrangement kept between runs: its geometry, splitter sizes, Problems shown."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QByteArray
from PySide6.QtWidgets import QAbstractButton, QSplitter, QWidget

PROBLEMS_KEY = "problems_visible"


def _text(data: QByteArray) -> str:
    return bytes(data.toBase64().data()).decode()


def restore_arrangement(
    ui: dict[str, Any], problems_button: QAbstractButton, splitters: dict[str, QSplitter]
) -> None:
    """The Problems panel and the splitters as saved (the geometry: window_fit.place_window)."""
    # the panel is shown before the splitter sizes come back, so they apply as saved
    problems_button.setChecked(bool(ui.get(PROBLEMS_KEY, False)))
    for key, splitter in splitters.items():
        state = ui.get(key)
        if isinstance(state, str):
            splitter.restoreState(QByteArray.fromBase64(state.encode()))


def save_arrangement(
    ui: dict[str, Any],
    window: QWidget,
    problems_button: QAbstractButton,
    splitters: dict[str, QSplitter],
) -> None:
    ui["geometry"] = _text(window.saveGeometry())
    for key, splitter in splitters.items():
        ui[key] = _text(splitter.saveState())
    ui[PROBLEMS_KEY] = problems_button.isChecked()
