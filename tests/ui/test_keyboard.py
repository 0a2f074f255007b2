"""The keyboard: visible focus, the focus order, shortcuts, typing to the composer, approvals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QAbstractButton, QApplication, QWidget

from loki_desktop.core.services import Services
from loki_desktop.ui.chat.items import AssistantMessage, ToolCard
from loki_desktop.ui.theme import Theme
from loki_desktop.ui.window.main_window import MainWindow
from tests.fakes.ollama_server import FakeOllama, ModelCard, Reply
from tests.ui.helpers import open_window, wait_until


def tab_chain(window: MainWindow, start: QWidget, limit: int = 40) -> list[QWidget]:
    """The widgets Tab visits from `start`, once round."""
    start.setFocus()
    seen: list[QWidget] = []
    for _ in range(limit):
        widget = QApplication.focusWidget()
        if widget is None or widget in seen:
            break
        seen.append(widget)
        window.focusNextChild()
    return seen


def type_text(qtbot: Any, text: str) -> None:
    """Keys as a keyboard sends them: each to the widget that has the focus then."""
    for char in text:
        focus = QApplication.focusWidget()
        assert focus is not None
        qtbot.keyClicks(focus, char)


def picture(widget: QWidget) -> QImage:
    return widget.grab().toImage()


async def test_tab_goes_sidebar_then_top_bar_then_chat_then_composer(
    ollama: FakeOllama, qtbot: Any, services: Services
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        chain = tab_chain(window, window.conversations.new_button)
        order = [
            window.conversations.new_button,
            window.conversations.search,
            window.conversations.list,
            window.conversations.this_folder,
            window.model_picker,
            window.workspace_picker,
            window.problems_button,
            window.settings_button,
            window.composer.input,
            window.composer.button,
        ]
        assert [w for w in chain if w in order] == order
        # compact: the menus take the place of the controls they stand for
        window.resize(800, 560)
        await wait_until(lambda: window.compact_bar.compact)
        chain = tab_chain(window, window.conversations.list)
        bar = window.compact_bar
        assert chain[1:6] == [
            window.conversations.this_folder,
            bar.model_button,
            bar.folder_button,
            window.problems_button,
            window.settings_button,
        ]


@pytest.mark.parametrize("theme", ["light", "dark"])
async def test_every_control_on_the_tab_path_shows_its_focus(
    ollama: FakeOllama, qtbot: Any, services: Services, theme: str
) -> None:
    async with open_window(services, qtbot, ollama.url, theme=theme) as window:
        Theme(theme).apply(QApplication.instance())  # type: ignore[arg-type]
        try:
            chain = tab_chain(window, window.conversations.new_button)
            assert len(chain) >= 9
            elsewhere = window.conversations.search
            for widget in chain:
                target = window.composer if widget is window.composer.input else widget
                widget.setFocus()
                focused = picture(target)
                (elsewhere if widget is not elsewhere else window.settings_button).setFocus()
                unfocused = picture(target)
                assert focused != unfocused, f"{widget.objectName() or widget} shows no focus"
        finally:
            QApplication.instance().setStyleSheet("")  # type: ignore[union-attr]


async def test_shortcuts_and_the_whole_flow_without_a_mouse(
    ollama: FakeOllama, qtbot: Any, services: Services
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        ollama.script(Reply.text("Première réponse."), Reply.text("Seconde réponse."))
        window.conversations.search.setFocus()
        qtbot.keyClick(window, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
        assert window.composer.input.hasFocus()
        qtbot.keyClicks(window.composer.input, "Bonjour")
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
        await wait_until(
            lambda: window.sessions.current is not None and not window.sessions.current.runner.busy
        )
        first = window.sessions.current
        assert first is not None
        # a new conversation, a message, then back to the first one through the search
        qtbot.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
        assert window.sessions.current is None
        qtbot.keyClicks(window.composer.input, "Autre chose")
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
        await wait_until(
            lambda: window.sessions.current is not None and not window.sessions.current.runner.busy
        )
        qtbot.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
        assert window.conversations.search.hasFocus()
        qtbot.keyClicks(window.conversations.search, "Bonjour")
        await wait_until(lambda: window.conversations.list.count() == 1)
        qtbot.keyClick(window.conversations.search, Qt.Key.Key_Tab)
        assert window.conversations.list.hasFocus()
        qtbot.keyClick(window.conversations.list, Qt.Key.Key_Down)
        await wait_until(
            lambda: window.sessions.current is not None and window.sessions.current.id == first.id
        )
        # Ctrl+, opens the settings; Escape closes them
        qtbot.keyClick(window, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
        dialog = await_dialog()
        assert dialog.isVisible()
        qtbot.keyClick(dialog, Qt.Key.Key_Escape)
        await wait_until(lambda: not dialog.isVisible())


def await_dialog() -> QWidget:
    found = [w for w in QApplication.topLevelWidgets() if w.objectName() == "SettingsDialog"]
    assert found, "Ctrl+, opened no settings"
    return found[-1]


async def test_typing_anywhere_in_the_chat_goes_to_the_composer(
    ollama: FakeOllama, qtbot: Any, services: Services
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        ollama.script(Reply.text("Une réponse à copier."))
        window.composer.set_text("Salut")
        window.composer.submit()
        await wait_until(
            lambda: window.sessions.current is not None and not window.sessions.current.runner.busy
        )
        assert window.sessions.current is not None
        answer = next(
            i for i in window.sessions.current.view.items() if isinstance(i, AssistantMessage)
        )
        answer.copy_button.setFocus()
        type_text(qtbot, "et ensuite")
        assert window.composer.text() == "et ensuite"
        assert window.composer.input.hasFocus()
        # Space on a focused button still presses it (it is not typing)
        answer.copy_button.setFocus()
        qtbot.keyClick(answer.copy_button, Qt.Key.Key_Space)
        assert QApplication.clipboard().text() == "Une réponse à copier."
        assert window.composer.text() == "et ensuite"


async def test_icon_only_buttons_have_a_name(
    ollama: FakeOllama, qtbot: Any, services: Services, tmp_path: Path
) -> None:
    from tests.ui.test_attachments import write_image  # a real image file

    ollama.cards = {"gemma3:4b": ModelCard.no_tools("vision")}
    ollama.models = ["gemma3:4b"]
    async with open_window(services, qtbot, ollama.url) as window:
        await wait_until(lambda: window.model_picker.current_model() == "gemma3:4b")
        await wait_until(lambda: window.composer.attach_button.isEnabled())
        await window.composer.attachments.attach_paths([write_image(tmp_path, "a.png", "png")])
        await wait_until(lambda: bool(window.composer.attachments.images))
        buttons = [b for b in window.findChildren(QAbstractButton) if b.isVisible()]
        assert any(b.text() == "×" for b in buttons)  # the thumbnail's remove button
        for widget in buttons:
            text = widget.text().replace("&", "")
            assert any(ch.isalnum() for ch in text) or widget.accessibleName(), widget


async def test_the_approval_dialog_defaults_to_refuse_and_looks_it(
    ollama: FakeOllama, qtbot: Any, services: Services, workspace: Path
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        window.workspace_picker.choose(str(workspace))
        ollama.script(Reply.tool("run_shell", {"command": "touch x.txt"}), Reply.text("Bon."))
        window.composer.set_text("Crée x.txt")
        window.composer.submit()
        assert window.sessions.current is not None
        approver = window.sessions.current.approver
        await wait_until(lambda: approver.dialog is not None and approver.dialog.isVisible())
        dialog = approver.dialog
        assert dialog is not None
        assert dialog.deny_button.isDefault()
        assert not dialog.allow_button.isDefault()
        # drawn as the main action: the accent fill, not the allow button's
        theme = Theme("light")
        theme.apply(QApplication.instance())  # type: ignore[arg-type]
        try:
            deny = picture(dialog.deny_button)
            allow = picture(dialog.allow_button)
        finally:
            QApplication.instance().setStyleSheet("")  # type: ignore[union-attr]
        accent = theme.palette.accent.lower()
        assert deny.pixelColor(6, deny.height() // 2).name() == accent
        assert allow.pixelColor(6, allow.height() // 2).name() != accent
        card = [i for i in window.sessions.current.view.items() if isinstance(i, ToolCard)][-1]
        assert card.chip.text() == "EN ATTENTE"
        qtbot.keyClick(dialog, Qt.Key.Key_Return)  # Enter refuses
        await wait_until(lambda: not window.sessions.current.runner.busy)
        assert not (workspace / "x.txt").exists()
        assert card.chip.text() == "REFUSÉ"
        assert card.chip.property("state") == "refused"
        assert card.property("state") == "refused"


@pytest.mark.parametrize("theme", ["light", "dark"])
async def test_every_control_of_the_settings_shows_its_focus(
    ollama: FakeOllama, qtbot: Any, services: Services, theme: str
) -> None:
    async with open_window(services, qtbot, ollama.url, theme=theme) as window:
        Theme(theme).apply(QApplication.instance())  # type: ignore[arg-type]
        dialog = window.settings_opener.open()
        try:
            dialog.activateWindow()
            await wait_until(dialog.isActiveWindow)
            for page in ("general", "mcp"):
                dialog.show_page(page)
                chain = tab_chain(dialog, dialog.nav)  # type: ignore[arg-type]
                assert len(chain) >= 6
                names = set()
                for widget in chain:
                    names.add(type(widget).__name__)
                    widget.setFocus()
                    focused = picture(widget)
                    other = dialog.nav if widget is not dialog.nav else dialog.cancel_button
                    other.setFocus()
                    unfocused = picture(widget)
                    assert focused != unfocused, f"{page}: {widget.objectName() or widget}"
                # the kinds of control these pages have, each seen with and without focus
                assert {"QPushButton", "QLineEdit"} <= names
                if page == "mcp":
                    assert "QCheckBox" in names
        finally:
            dialog.reject()
            await dialog.mcp.tasks.cancel_all()
            QApplication.instance().setStyleSheet("")  # type: ignore[union-attr]
