"""Diff cards, readable arguments, and review before writing, in the real window."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication, QLabel, QPushButton
from shiboken6 import isValid

from loki_desktop.core.services import Services
from loki_desktop.core.tools.diffs import compute_change
from loki_desktop.ui.changes.change_view import FOLD_ROWS, ChangeView
from loki_desktop.ui.changes.write_approval import WriteApprovalDialog
from loki_desktop.ui.chat.items import ToolCard
from loki_desktop.ui.text.markdown_render import MarkdownRenderer
from loki_desktop.ui.theme import DARK, LIGHT, Theme
from loki_desktop.ui.window.main_window import MainWindow
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.helpers import open_window, wait_until


def numbered(count: int, word: str = "line") -> str:
    return "".join(f"{word} {i}\n" for i in range(1, count + 1))


def card_with(qtbot: Any, old: str | None, new: str, path: str = "m.py") -> ToolCard:
    card = ToolCard("c1", "write_file", {"path": path, "content": new})
    qtbot.addWidget(card)
    card.set_result(True, f"{path} écrit", "ok")
    change = compute_change(path, old.encode() if old is not None else None, new.encode())
    card.set_change(change, MarkdownRenderer(LIGHT))
    card.resize(800, 600)
    card.show()
    return card


def test_an_edit_card_shows_counts_and_a_numbered_coloured_diff(qtbot: Any) -> None:
    old = numbered(30)
    new = old.replace("line 10\n", "line ten\nline ten and a half\n").replace("line 20\n", "")
    card = card_with(qtbot, old, new)
    assert card.counts is not None
    assert "+2" in card.counts.text()
    assert "\N{MINUS SIGN}2" in card.counts.text()
    view = card.change_view
    assert view is not None
    assert view.diff_text is not None
    text = view.shown_text()
    assert "-line 10\n+line ten\n+line ten and a half\n" in text
    assert "--- a/m.py" not in text  # the headers are the card's, not the diff's
    rows = view.diff_text.rows
    removed = next(r for r in rows if r.text == "-line 10")
    added = next(r for r in rows if r.text == "+line ten")
    context = next(r for r in rows if r.text == " line 9")
    assert (removed.old, removed.new) == (10, None)
    assert (added.old, added.new) == (None, 10)
    assert (context.old, context.new) == (9, 9)
    # coloured by kind, from the theme's palette
    block = view.diff_text.document().findBlockByNumber(rows.index(added))
    assert block.blockFormat().background().color().name().upper() == LIGHT.ok_soft.upper()
    block = view.diff_text.document().findBlockByNumber(rows.index(removed))
    assert block.blockFormat().background().color().name().upper() == LIGHT.danger_soft.upper()
    assert view.more_button is None  # short: nothing folded, no button made


def test_a_long_diff_is_folded_until_tout_voir(qtbot: Any) -> None:
    card = card_with(qtbot, numbered(200), numbered(200, "changed"))
    view = card.change_view
    assert view is not None
    assert view.diff_text is not None
    assert view.total_lines > FOLD_ROWS
    assert view.diff_text.blockCount() == FOLD_ROWS
    assert view.more_button is not None
    assert view.more_button.isVisible()
    assert "Tout voir" in view.more_button.text()
    folded_height = view.diff_text.height()
    view.more_button.click()
    assert view.diff_text.blockCount() == view.total_lines
    assert view.diff_text.height() > folded_height * 4  # as tall as its rows, not cut
    assert "+changed 200" in view.shown_text()
    assert view.more_button.text() == "Réduire"
    view.more_button.click()
    assert view.diff_text.blockCount() == FOLD_ROWS


async def test_a_new_file_shows_as_numbered_highlighted_code(qtbot: Any) -> None:
    card = card_with(qtbot, None, "def hello():\n    return 42\n", path="hello.py")
    assert card.counts is not None
    assert "+2" in card.counts.text()
    view = card.change_view
    assert view is not None
    assert view.diff_text is not None
    assert view.shown_text() == "def hello():\n    return 42"  # the code, no +/- signs
    assert [(r.old, r.new) for r in view.diff_text.rows] == [(None, 1), (None, 2)]
    await wait_until(lambda: not view.colouring)
    # the keyword and the name get different colours from the Markdown blocks' style
    colours = piece_colours(view, 0)
    assert colours["def"] != colours.get("hello", LIGHT.ink.lower())
    assert colours["def"] != LIGHT.ink.lower()


def piece_colours(view: ChangeView, row: int) -> dict[str, str]:
    """The syntax colours laid over a row (the highlighter's formats), by the text they cover."""
    assert view.diff_text is not None
    block = view.diff_text.document().findBlockByNumber(row)
    units = block.text().encode("utf-16-le")  # Qt's positions count UTF-16 units
    found = {}
    for laid in block.layout().formats():
        piece = units[2 * laid.start : 2 * (laid.start + laid.length)].decode("utf-16-le")
        found[piece] = laid.format.foreground().color().name()
    return found


async def test_a_long_new_file_unfolds_at_once_and_is_coloured_in_the_background(
    qtbot: Any,
) -> None:
    code = "".join(f'def f{i}(x):\n    return "é🙂" + str(x + {i})\n' for i in range(100))
    card = card_with(qtbot, None, code, path="long.py")
    view = card.change_view
    assert view is not None
    assert view.diff_text is not None
    assert view.diff_text.blockCount() == FOLD_ROWS
    assert view.more_button is not None
    await wait_until(lambda: not view.colouring)
    assert view.coloured == FOLD_ROWS  # what is shown, not more
    view.more_button.click()
    assert view.diff_text.blockCount() == 200
    assert view.shown_text().endswith('return "é🙂" + str(x + 99)')
    assert piece_colours(view, 198) == {}  # on screen before its colours
    await wait_until(lambda: not view.colouring)
    late = piece_colours(view, 198)  # "def f99(x):"
    assert "def" in late
    assert view.coloured == 200
    # the pieces after a non-BMP character kept their place (Qt counts UTF-16 units)
    after = piece_colours(view, 199)
    assert "str" in after
    assert after["str"] != after['"é🙂"']


def test_a_short_diff_card_makes_no_fold_button_and_no_empty_note(qtbot: Any) -> None:
    """Every card a reopened page builds costs its widgets: a short diff with nothing to
    say has only its lines; a note is made when there is one."""
    card = card_with(qtbot, numbered(30), numbered(30).replace("line 5\n", "five\n"))
    view = card.change_view
    assert view is not None
    assert (view.note, view.more_button) == (None, None)
    assert view.findChildren(QPushButton) == []
    assert view.findChildren(QLabel) == []
    assert "+five" in view.shown_text()
    unchanged = card_with(qtbot, "a\n", "a\n")
    same = unchanged.change_view
    assert same is not None
    assert same.note is not None
    assert same.note.isVisible()
    assert "Aucun changement" in same.note.text()


def background_at_bottom_right(view: ChangeView) -> str:
    assert view.diff_text is not None
    shot = view.diff_text.grab().toImage()
    return str(shot.pixelColor(shot.width() - 12, shot.height() - 12).name())


def test_a_diff_is_drawn_on_the_code_background_of_the_theme_in_force(qtbot: Any) -> None:
    """Its background comes from the application's style sheet, not one of its own (a
    style object of its own per diff, and a switch of theme left it in the old one)."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    Theme("light").apply(app)
    try:
        card = card_with(qtbot, numbered(30), numbered(30).replace("line 5\n", "five\n"))
        view = card.change_view
        assert view is not None
        assert view.diff_text is not None
        assert view.diff_text.styleSheet() == ""
        assert background_at_bottom_right(view) == LIGHT.code_bg.lower()
        Theme("dark").apply(app)
        assert background_at_bottom_right(view) == DARK.code_bg.lower()
    finally:
        app.setStyleSheet("")


def test_a_dark_card_uses_the_dark_palette(qtbot: Any) -> None:
    card = ToolCard("c2", "edit_file", {"path": "x"})
    qtbot.addWidget(card)
    card.set_change(compute_change("x", b"a\n", b"b\n"), MarkdownRenderer(DARK))
    view = card.change_view
    assert view is not None
    assert view.diff_text is not None
    block = view.diff_text.document().findBlockByNumber(1)  # "-a" after the hunk row
    assert block.blockFormat().background().color().name().upper() == DARK.danger_soft.upper()


def test_arguments_are_pretty_json_with_real_line_breaks_never_cut(qtbot: Any) -> None:
    args = {"query": 'SELECT *\nFROM t\nWHERE x = "y"', "limit": 5, "tags": ["a", "b"]}
    card = ToolCard("c3", "run_query", args)
    qtbot.addWidget(card)
    card.resize(700, 400)
    card.show()
    assert card.args_view is None  # built when first unfolded
    card.args_button.click()
    view = card.args_view
    assert view is not None
    assert view.isVisible()
    text = view.toPlainText()
    assert text == (
        "{\n"
        '  "query": "SELECT *\n'
        "FROM t\n"
        'WHERE x = \\"y\\"",\n'
        '  "limit": 5,\n'
        '  "tags": [\n    "a",\n    "b"\n  ]\n'
        "}"
    )
    assert "\\n" not in text
    # as tall as its text: the last line is on screen, there is nothing to scroll
    assert view.height() >= view.document().size().height()
    assert view.verticalScrollBar().maximum() == 0
    card.args_button.click()
    assert not view.isVisible()


# --- review before writing, in the window -------------------------------------------------


def review_on(services: Services) -> None:
    settings = services.settings.load()
    settings.review_writes = True
    services.settings.save(settings)


def cards(window: MainWindow) -> list[ToolCard]:
    assert window.sessions.current is not None
    return [i for i in window.sessions.current.view.items() if isinstance(i, ToolCard)]


async def ask(window: MainWindow, text: str) -> WriteApprovalDialog:
    window.composer.set_text(text)
    window.composer.submit()
    assert window.sessions.current is not None
    approver = window.sessions.current.approver
    await wait_until(lambda: approver.dialog is not None and approver.dialog.isVisible())
    assert isinstance(approver.dialog, WriteApprovalDialog)
    return approver.dialog


async def finished(window: MainWindow) -> None:
    await wait_until(
        lambda: window.sessions.current is not None and not window.sessions.current.runner.busy
    )


async def test_review_waits_refuses_then_always_and_the_diff_survives_reopening(
    ollama: FakeOllama, workspace: Path, services: Services, qtbot: Any
) -> None:
    review_on(services)
    target = workspace / "notes.txt"
    target.write_text("first\nsecond\n")
    ollama.script(
        Reply.tool("write_file", {"path": "notes.txt", "content": "first\nSECOND\n"}),
        Reply.text("Refusé, compris."),
        Reply.tool("edit_file", {"path": "notes.txt", "old_text": "second", "new_text": "2nd"}),
        Reply.text("Modifié."),
        Reply.tool("write_file", {"path": "new.py", "content": "x = 1\n"}),
        Reply.text("Créé."),
    )
    async with open_window(services, qtbot, ollama.url) as window:
        window.workspace_picker.choose(str(workspace))
        dialog = await ask(window, "Mets SECOND en majuscules")
        assert dialog.change_view.diff_text is not None
        assert "-second\n+SECOND" in dialog.change_view.shown_text()
        assert window.sessions.current is not None
        assert window.sessions.current.runner.busy  # the turn waits for the answer
        # the card and the status line say what the turn waits for, not EN COURS / répond
        waiting = cards(window)[-1]
        assert waiting.state == "waiting"
        assert waiting.chip.text() == "EN ATTENTE"  # not EN COURS (it fits a narrow card)
        status = window.stream_status.text
        await wait_until(lambda: "EN ATTENTE de votre accord pour écrire" in status.text())
        dialog.deny_button.click()
        await finished(window)
        assert target.read_text() == "first\nsecond\n"
        refused = cards(window)[-1]
        assert refused.state == "refused"  # a neutral REFUSÉ, like a refused command
        assert refused.chip.text() == "REFUSÉ"
        assert refused.change_view is None

        dialog = await ask(window, "Alors écris 2nd")
        dialog.always.setChecked(True)
        dialog.allow_button.click()
        await finished(window)
        assert target.read_text() == "first\n2nd\n"

        # "always for this conversation": the next write is not asked about
        window.composer.set_text("Crée new.py")
        window.composer.submit()
        await finished(window)
        assert (workspace / "new.py").read_text() == "x = 1\n"
        assert window.sessions.current.approver.dialog is None
        conversation = window.sessions.current.id
        edit_card = cards(window)[-2]
        assert edit_card.change_view is not None
        live_text = edit_card.change_view.shown_text()

    async with open_window(services, qtbot, ollama.url) as window:
        window.sessions.open_conversation(conversation)
        reopened = cards(window)
        assert [c.name for c in reopened] == ["write_file", "edit_file", "write_file"]
        assert reopened[0].change_view is None  # the refused one changed nothing
        edit = reopened[1]
        assert edit.change_view is not None
        assert edit.change_view.shown_text() == live_text
        assert edit.counts is not None
        assert "+1" in edit.counts.text()
        created = reopened[2].change_view
        assert created is not None
        assert "x = 1" in created.shown_text()


async def test_stop_while_asking_to_write_closes_the_dialog_and_writes_nothing(
    ollama: FakeOllama, workspace: Path, services: Services, qtbot: Any
) -> None:
    review_on(services)
    ollama.script(Reply.tool("write_file", {"path": "jamais.txt", "content": "x\n"}))
    async with open_window(services, qtbot, ollama.url) as window:
        window.workspace_picker.choose(str(workspace))
        dialog = await ask(window, "Crée jamais.txt")
        assert "x" in dialog.change_view.shown_text()
        window.sessions.stop_current()
        await finished(window)
        assert window.sessions.current is not None
        assert window.sessions.current.approver.dialog is None
        assert not isValid(dialog) or not dialog.isVisible()  # closed (and deleted)
        assert not (workspace / "jamais.txt").exists()
        assert cards(window)[-1].state == "cut"


async def test_the_review_setting_is_in_reglages_off_by_default(
    ollama: FakeOllama, services: Services, qtbot: Any
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        dialog = window.settings_opener.open()
        dialog.show_page("intelligence")
        box = dialog.intelligence.review_writes
        assert box.text() == "Demander avant d'écrire"
        assert not box.isChecked()
        box.setChecked(True)
        dialog.save_button.click()
        await dialog.tasks.cancel_all()
        assert services.settings.load().review_writes
        assert window.runtime.settings.review_writes
        again = window.settings_opener.open()
        assert again.intelligence.review_writes.isChecked()
        again.reject()
        await again.mcp.tasks.cancel_all()
        await again.tasks.cancel_all()
