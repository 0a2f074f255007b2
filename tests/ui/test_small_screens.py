"""Small screens: the first size fits the screen, the window works at 800×560, the sidebar hides."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QApplication, QWidget

from loki_desktop.core.services import Services
from loki_desktop.ui.theme import Theme
from loki_desktop.ui.window.compact_bar import HYSTERESIS_PX
from loki_desktop.ui.window.fit import FIRST_SIZE, MIN_SIZE, clamp_rect, fit_rect
from loki_desktop.ui.window.main_window import MainWindow
from tests.fakes.ollama_server import FakeOllama
from tests.ui.helpers import open_window, wait_until


@pytest.mark.parametrize(
    ("screen", "expected"),
    [
        # a 1280×800 laptop less a 30 px panel: the window no longer runs past the bottom
        (QRect(0, 30, 1280, 770), QRect(20, 30, 1240, 770)),
        # 1024×640: the whole screen, not 1240 wide
        (QRect(0, 0, 1024, 640), QRect(0, 0, 1024, 640)),
        # a roomy screen: the first size, centred
        (QRect(0, 0, 1920, 1080), QRect(340, 130, 1240, 820)),
        # a screen smaller than the minimum: the screen wins
        (QRect(0, 0, 760, 500), QRect(0, 0, 760, 500)),
    ],
)
def test_the_first_size_fits_the_available_screen(screen: QRect, expected: QRect) -> None:
    placed = fit_rect(FIRST_SIZE, screen)
    assert placed == expected
    assert screen.contains(placed)


def test_a_restored_geometry_is_brought_back_onto_a_smaller_screen() -> None:
    saved = QRect(300, 200, 1240, 820)  # from a big monitor, now on a 1024×640 one
    placed = clamp_rect(saved, QRect(0, 0, 1024, 640))
    assert QRect(0, 0, 1024, 640).contains(placed)
    inside = QRect(10, 10, 900, 600)
    assert clamp_rect(inside, QRect(0, 0, 1024, 640)) == inside  # left alone when it fits
    # never smaller than the minimum when the screen has room for it
    assert fit_rect(QSize(300, 200), QRect(0, 0, 1920, 1080)).size() == MIN_SIZE


@pytest.fixture
def styled() -> Iterator[None]:
    """Loki's style sheet on the application: sizes as a person sees them."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    Theme("light").apply(app)
    yield
    app.setStyleSheet("")


def essential(window: MainWindow) -> dict[str, QWidget]:
    return {
        "title": window.title,
        "model menu": window.compact_bar.model_button,
        "folder menu": window.compact_bar.folder_button,
        "problems": window.problems_button,
        "settings": window.settings_button,
        "new conversation": window.conversations.new_button,
        "search": window.conversations.search,
        "message": window.composer.input,
        "send": window.composer.button,
        "attach": window.composer.attach_button,
    }


def trouble(window: MainWindow) -> list[str]:
    """The essential controls hidden, cut off by the window's edge, or squeezed below what
    their text needs."""
    found = []
    for name, widget in essential(window).items():
        squeezed = widget is not window.title and widget.width() < widget.minimumSizeHint().width()
        if not widget.isVisible() or not fully_inside(window, widget) or squeezed:
            found.append(f"{name} {widget.geometry()} {widget.minimumSizeHint()}")
    return found


def fully_inside(window: MainWindow, widget: QWidget) -> bool:
    top_left = widget.mapTo(window, QPoint(0, 0))
    return window.rect().contains(QRect(top_left, widget.size()))


@pytest.mark.usefixtures("styled")
async def test_every_control_is_whole_at_800_by_560(
    ollama: FakeOllama, qtbot: Any, services: Services, tmp_path: Path
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        assert window.size() == FIRST_SIZE  # the test screen (1600×1000) has room for it
        assert not window.compact_bar.compact
        assert window.model_picker.isVisible()
        assert window.workspace_picker.isVisible()

        window.resize(800, 560)
        await wait_until(lambda: window.size() == QSize(800, 560))
        await wait_until(lambda: window.compact_bar.compact, what="the top bar collapses")
        assert not window.model_picker.isVisible()
        assert not window.workspace_picker.isVisible()
        # once laid out, every essential control is visible, inside, and not squeezed
        await wait_until(lambda: not trouble(window), what="cut off at 800×560")
        # a long folder name, a longer button (problems counted): the menus give up room
        window.workspace_picker.choose(str(tmp_path))
        await wait_until(lambda: not trouble(window), what="cut off with a long folder name")
        window.problems.count_changed.emit(12)  # (the new folder's watch said 0 meanwhile)
        await wait_until(lambda: not trouble(window), what="cut off with Problèmes (12)")
        # the title elides with "…" and keeps the full text in its tooltip
        window.title.set_full_text("Une conversation au titre vraiment très long " * 3)
        assert window.title.text().endswith("…")
        assert window.title.toolTip().startswith("Une conversation")
        # the compact menus show what they stand for
        assert "qwen2.5-coder:7b" in window.compact_bar.model_button.toolTip()

        window.resize(1580, 980)  # room even for the long folder name and the count
        await wait_until(lambda: not window.compact_bar.compact, what="the top bar widens")
        assert window.model_picker.isVisible()
        assert not window.compact_bar.model_button.isVisible()


async def test_the_compact_model_menu_chooses_the_model(
    ollama: FakeOllama, qtbot: Any, services: Services
) -> None:
    ollama.models = ("qwen2.5-coder:7b", "llama3.2:3b")
    async with open_window(services, qtbot, ollama.url) as window:
        await wait_until(lambda: window.model_picker.count() == 2)
        window.resize(800, 560)
        await wait_until(lambda: window.compact_bar.compact)
        menu = window.compact_bar.model_menu
        menu.aboutToShow.emit()  # what opening it does
        names = [action.text() for action in menu.actions()]
        assert names == ["qwen2.5-coder:7b", "llama3.2:3b"]
        menu.actions()[1].trigger()
        assert window.runtime.settings.model == "llama3.2:3b"
        assert window.compact_bar.model_button.toolTip() == "llama3.2:3b"


async def test_ctrl_b_hides_the_sidebar_and_it_stays_hidden(
    qtbot: Any, services: Services, offline_host: str
) -> None:
    async with open_window(services, qtbot, offline_host) as window:
        assert window.conversations.isVisible()
        qtbot.keyClick(window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
        assert not window.conversations.isVisible()
        window.save_state()
    async with open_window(services, qtbot, offline_host) as window:
        assert not window.conversations.isVisible()  # remembered
        # Ctrl+K searches the conversations: the list comes back to show the field
        qtbot.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
        assert window.conversations.isVisible()
        assert window.conversations.search.hasFocus()
        qtbot.keyClick(window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
        assert not window.conversations.isVisible()
        assert window.composer.input.hasFocus()  # the focus did not vanish with the list


async def test_a_window_saved_on_a_bigger_screen_opens_inside_this_one(
    qtbot: Any, services: Services, offline_host: str
) -> None:
    big = QWidget()
    qtbot.addWidget(big)
    big.setGeometry(900, 700, 2400, 1500)  # from a 4K monitor, partly right of this screen
    settings = services.settings.load()
    settings.ui["geometry"] = bytes(big.saveGeometry().toBase64().data()).decode()
    services.settings.save(settings)
    async with open_window(services, qtbot, offline_host) as window:
        available = window.screen().availableGeometry()  # 1600×1000 in these tests
        assert available.contains(window.frameGeometry())
        assert window.width() >= MIN_SIZE.width()
        assert window.height() >= MIN_SIZE.height()


async def test_the_window_stays_where_it_was_over_restarts(
    qtbot: Any, services: Services, offline_host: str
) -> None:
    places = []
    for _start in range(3):
        async with open_window(services, qtbot, offline_host) as window:
            await wait_until(lambda: window.isVisible())
            places.append(window.geometry())
            window.save_state()
    assert places[0] == places[1] == places[2], places  # not one pixel further each time


async def test_the_top_bar_changes_form_by_one_rule_with_hysteresis(
    ollama: FakeOllama, qtbot: Any, services: Services
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        bar, header = window.compact_bar, window.header
        await wait_until(lambda: window.model_picker.count() > 0)
        full = bar.full_width()
        chrome = window.width() - header.width()  # the sidebar and the margins around it

        async def at(header_width: int) -> bool:
            window.resize(header_width + chrome, window.height())
            await wait_until(lambda: header.width() == header_width, what=f"{header_width}")
            return bar.compact

        assert not await at(full + 5)
        assert await at(full - 5)  # no room for the full bar: compact
        assert await at(full + 5)  # just enough again: it stays compact (no flip-flop)
        assert not await at(full + HYSTERESIS_PX + 5)  # with room to spare: full again


async def test_the_chat_does_not_move_sideways_when_its_scroll_bar_appears(
    qtbot: Any, services: Services, offline_host: str
) -> None:
    async with open_window(services, qtbot, offline_host) as window:
        store = window.runtime.store
        window.sessions.open_conversation(store.create("Longue"))
        assert window.sessions.current is not None
        view = window.sessions.current.view
        view.add_user_message("Bonjour")
        column = view.widget().findChild(QWidget, "ChatColumn")
        assert column is not None
        await wait_until(lambda: not view.verticalScrollBar().isVisible())
        left = column.mapTo(view, QPoint(0, 0)).x()
        for number in range(40):
            view.add_user_message(f"Message {number} " * 8)
        await wait_until(lambda: view.verticalScrollBar().isVisible(), what="the scroll bar")
        await wait_until(lambda: column.mapTo(view, QPoint(0, 0)).x() == left, within=5)
