"""The window in French and in English: every page, dialog and card, with no word of the other.

A walker reads what a person reads (labels, buttons, tooltips, placeholders, window titles,
menu entries, list and combo items, accessible names) in every widget, shown or not, and a
small detector (word lists) flags a French word in English and an English word in French.
New text is caught the same way: a string added without `_()`, or left out of the English
catalogue, fails here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QFileDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QMenu,
    QPlainTextEdit,
    QTextEdit,
    QTreeWidget,
    QWidget,
)

from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.checks.registry import Checkers
from loki_desktop.core.i18n import set_language, set_typography
from loki_desktop.core.services import Services
from loki_desktop.core.tools.diffs import compute_change
from loki_desktop.core.tools.jail import Workspace
from loki_desktop.core.tools.native import NativeTools
from loki_desktop.ui.changes.approval import ApprovalDialog
from loki_desktop.ui.changes.change_view import ChangeView
from loki_desktop.ui.changes.write_approval import WriteApprovalDialog
from loki_desktop.ui.chat.items import ToolCard
from loki_desktop.ui.chat.view import ChatView
from loki_desktop.ui.main import install_qt_translations
from loki_desktop.ui.quick_prompt import QuickPrompt
from loki_desktop.ui.window.main_window import MainWindow
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.language_words import wrong_words
from tests.ui.helpers import open_window, wait_until


def texts_of(widget: QWidget) -> Iterator[tuple[str, str]]:
    """Every text a person may read in `widget` and its children."""
    for child in [widget, *widget.findChildren(QWidget)]:
        where = f"{type(child).__name__}({child.objectName()})"
        yield where + ".toolTip", child.toolTip()
        yield where + ".accessibleName", child.accessibleName()
        if child.isWindow():
            yield where + ".windowTitle", child.windowTitle()
        if isinstance(child, QLabel | QAbstractButton):
            yield where + ".text", child.text()
        if isinstance(child, QLineEdit | QPlainTextEdit | QTextEdit):
            yield where + ".placeholder", child.placeholderText()
        if isinstance(child, QComboBox):
            for index in range(child.count()):
                yield where + f".item{index}", child.itemText(index)
        if isinstance(child, QListWidget):
            for index in range(child.count()):
                yield where + f".item{index}", child.item(index).text()
        if isinstance(child, QTreeWidget):
            header = child.headerItem()
            for column in range(header.columnCount()):
                yield where + f".header{column}", header.text(column)
        if isinstance(child, QMenu):
            for action in child.actions():
                yield where + ".action", action.text()
        for action in child.actions():
            yield where + ".action", action.text() + " " + action.toolTip()


# French typography: a plain space inside « » or before : ; ! ? lets a line break there
PLAIN_SPACE = re.compile(r"« | [:;!?»]")


def leftovers(widgets: list[QWidget], language: str) -> list[str]:
    found = []
    for widget in widgets:
        for where, text in texts_of(widget):
            wrong = wrong_words(text.replace("&", ""), language)
            if language == "fr" and PLAIN_SPACE.search(text):
                wrong.append("espace sécable")
            if text and wrong:
                found.append(f"{where}: {text!r} {wrong}")
    return sorted(set(found))


@pytest.mark.parametrize(
    ("text", "language", "wrong"),
    [
        ("Nouvelle conversation", "en", ["nouvelle"]),
        ("Réglages", "en", ["réglages"]),
        ("New conversation", "fr", ["new"]),
        ("Created stats.py (417 bytes)", "fr", ["created", "bytes"]),
        ("exit code 0", "fr", ["exit"]),
        ("Settings", "en", []),
        ("Réglages", "fr", []),
        ("Automatic (Français)", "en", []),
        ("« logo.png » pointe vers un fichier qui n'existe pas (logo.png)", "fr", []),
    ],
)
def test_the_detector(text: str, language: str, wrong: list[str]) -> None:
    assert wrong_words(text, language) == wrong


async def _cards(window: MainWindow, root: Path) -> ChatView:
    """A chat with every kind of card, their texts made by the core as a turn makes them."""
    view = ChatView(window.rendering.renderer)
    view.add_user_message("demo")
    view.add_skill_badge("Python")
    tools = NativeTools(Workspace(root), FixedApprover(False))
    for call_id, name, args in (
        ("1", "write_file", {"path": "stats.py", "content": "x = 1\n"}),
        ("2", "read_file", {"path": "missing.py"}),
        ("3", "list_dir", {"path": "."}),
        ("4", "grep_search", {"pattern": "x", "path": "."}),
    ):
        outcome = await tools.call(name, args)
        view.add_tool_call(call_id, name, args)
        # a write carries its diff (the diff card)
        change = outcome.change
        view.set_tool_result(call_id, outcome.ok, outcome.summary, outcome.output, change=change)
    view.add_tool_call("5", "run_shell", {"command": "true"})
    view.interrupt_tools()
    (root / "page.html").write_text('<p><img src="logo.png"></p>\n', encoding="utf-8")
    result = await Checkers().check(root / "page.html", root)
    view.add_check("page.html", result.ok, [(p.line, p.col, p.message) for p in result.problems])
    view.add_check("stats.py", True, [])
    view.add_check("data.bin", True, [], skipped="?")
    view.add_notice("note")
    view.add_error("…", can_retry=True)
    view.show()
    assert view.findChildren(ChangeView), "the write's diff card is shown"
    return view


async def _everything(window: MainWindow, qtbot: Any, root: Path) -> list[QWidget]:
    """The window, each settings page, the dialogs and the cards, open at once."""
    widgets: list[QWidget] = [window]
    settings = window.settings_opener.open()
    qtbot.addWidget(settings)
    for row in range(settings.nav.count()):
        settings.nav.setCurrentRow(row)
    widgets.append(settings)
    approval = ApprovalDialog("ls -la", root)
    qtbot.addWidget(approval)
    widgets.append(approval)
    change = compute_change("stats.py", b"x = 1\n", b"x = 2\ny = 3\n")
    write_approval = WriteApprovalDialog(change, root, window.rendering.renderer)
    qtbot.addWidget(write_approval)
    widgets.append(write_approval)
    quick = QuickPrompt(window.runtime, window.rendering.renderer)
    qtbot.addWidget(quick)
    widgets.append(quick)
    widgets.append(await _cards(window, root))
    qtbot.addWidget(widgets[-1])
    widgets.append(window.workspace_picker.open_chooser())
    widgets.append(window.composer.choose_images())
    return widgets


@pytest.mark.parametrize("language", ["en", "fr"])
async def test_every_page_dialog_and_card_speaks_one_language(
    services: Services, qtbot: Any, offline_host: str, tmp_path: Path, language: str
) -> None:
    set_language(language)
    set_typography(True)  # as the window has it (app.run_window)
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    translator = install_qt_translations(app, language)
    try:
        async with open_window(services, qtbot, offline_host) as window:
            await wait_until(lambda: window.banner.isVisible(), what="the offline banner")
            widgets = await _everything(window, qtbot, tmp_path)
            found = leftovers(widgets, language)
            for dialog in widgets:
                if isinstance(dialog, QFileDialog):
                    dialog.reject()
            assert not found, "\n".join(found)
    finally:
        if translator is not None:
            app.removeTranslator(translator)


async def test_the_language_setting_is_saved_for_the_next_start(
    services: Services, qtbot: Any, offline_host: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANG", "en_US.UTF-8")  # the system is English: Automatique says so
    async with open_window(services, qtbot, offline_host) as window:
        dialog = window.settings_opener.open()
        choice = dialog.general.language
        assert [choice.itemData(i) for i in range(choice.count())] == ["auto", "fr", "en"]
        assert choice.itemText(0) == "Automatique (English)"
        assert "prochain démarrage" in dialog.general.language_note.text()
        choice.setCurrentIndex(choice.findData("en"))
        dialog.save_button.click()
        await dialog.tasks.cancel_all()
    assert services.settings.load().language == "en"
    # what the next start reads, before anything is translated (app.choose_language)
    from loki_desktop.persistence.paths import settings_path
    from loki_desktop.persistence.settings_file import read_language

    assert read_language(settings_path()) == "en"


async def test_a_tool_card_written_in_french_reads_in_english_once_reopened(
    ollama: FakeOllama, qtbot: Any, services: Services, workspace: Path
) -> None:
    settings = services.settings.load()
    settings.workspace = str(workspace)
    services.settings.save(settings)
    ollama.script(
        Reply.tool("write_file", {"path": "app.js", "content": "x" * 68}), Reply.text("Fait.")
    )
    async with open_window(services, qtbot, ollama.url) as window:  # French, the source
        window.sessions.send("Écris app.js")
        await wait_until(lambda: not window.sessions.current.runner.busy)  # type: ignore[union-attr]
        view = window.sessions.current.view  # type: ignore[union-attr]
        cards = [item for item in view.items() if isinstance(item, ToolCard)]
        assert [c.detail.text() for c in cards] == ["app.js écrit (68 octets)"]
        window.save_state()
    set_language("en")  # the next start, in English
    async with open_window(services, qtbot, ollama.url) as window:
        view = window.sessions.current.view  # type: ignore[union-attr]
        cards = [item for item in view.items() if isinstance(item, ToolCard)]
        assert [c.detail.text() for c in cards] == ["app.js written (68 bytes)"]
