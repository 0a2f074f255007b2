"""A reopened conversation builds what is near the bottom; the rest comes as it is scrolled to."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel, QTextBrowser, QWidget

from loki_desktop.core.messages import ChatMessage
from loki_desktop.core.services import Services
from loki_desktop.ui.chat_items import AssistantMessage, UserMessage
from loki_desktop.ui.chat_view import ChatView
from tests.fakes.ollama_server import FakeOllama
from tests.ui.helpers import open_window, wait_until

TURNS = 12


def long_answer(turn: int) -> str:
    paragraph = f"Réponse {turn} : " + "une phrase assez longue pour remplir la ligne. " * 8
    return "\n\n".join(f"{paragraph} ({n})" for n in range(12))


def seed_long(services: Services) -> str:
    """A conversation of TURNS turns, each a question and a long answer; it is the one the
    window reopens."""
    store = services.open_history()
    conversation_id = store.create("Longue")
    for turn in range(TURNS):
        store.append(conversation_id, ChatMessage("user", f"question {turn}"))
        store.append(conversation_id, ChatMessage("assistant", long_answer(turn)))
    close = getattr(store, "close", None)
    if callable(close):
        close()
    settings = services.settings.load()
    settings.ui["conversation"] = conversation_id
    services.settings.save(settings)
    return conversation_id


def laid_out(view: ChatView) -> bool:
    """Every item has its place, one under the other (a new one starts at the top corner),
    and the scroll area has taken in the column's new height."""
    items = view.items()
    in_order = all(a.geometry().bottom() < b.geometry().top() for a, b in pairwise(items))
    area = view.widget()
    bottom = items[-1].mapTo(area, QPoint(0, items[-1].height())).y()
    bar = view.verticalScrollBar()
    resized = bar.maximum() == area.height() - view.viewport().height()
    return in_order and bottom <= area.height() and resized


def shape(view: ChatView) -> tuple[object, ...]:
    bar = view.verticalScrollBar()
    return bar.value(), bar.maximum(), tuple(item.geometry() for item in view.items())


async def settled(view: ChatView) -> None:
    """Wait until the view is laid out and stays so from one loop turn to the next."""
    seen: list[tuple[object, ...]] = []

    def still() -> bool:
        seen.append(shape(view))
        return len(seen) > 2 and seen[-1] == seen[-2] == seen[-3] and laid_out(view)

    await wait_until(still, what="the view settles")


def top_item(view: ChatView) -> tuple[QWidget, int]:
    """The item at the top edge of what the view shows, and its distance from that edge."""
    area = view.widget()
    value = view.verticalScrollBar().value()
    for item in view.items():
        y = item.mapTo(area, QPoint(0, 0)).y()
        if y + item.height() > value:
            return item, y - value
    raise AssertionError("nothing shown")


async def test_a_reopened_long_conversation_builds_only_the_turns_near_the_bottom(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    seed_long(services)
    async with open_window(services, qtbot, ollama.url) as window:
        assert window.sessions.current is not None
        view = window.sessions.current.view
        bar = view.verticalScrollBar()
        await wait_until(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())
        answers = [i for i in view.items() if isinstance(i, AssistantMessage)]
        # the page read from the store holds every turn; a few are built
        assert 0 < len(answers) < TURNS // 2
        assert answers[-1].markdown() == long_answer(TURNS - 1)
        assert view.following
        assert view.has_more
        # what is built covers the view (the person sees no gap at the top)
        assert bar.maximum() >= view.viewport().height() // 2


async def test_scrolling_up_builds_the_rest_without_moving_what_is_shown(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    seed_long(services)
    async with open_window(services, qtbot, ollama.url) as window:
        assert window.sessions.current is not None
        view = window.sessions.current.view
        bar = view.verticalScrollBar()
        await wait_until(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())
        builds = 0
        while view.has_more:
            before = len(view.items())
            bar.setValue(max(0, bar.value() - 3 * bar.singleStep() - 60))  # a wheel notch or so
            anchor, offset = top_item(view)
            y = anchor.mapTo(view.widget(), QPoint(0, 0)).y()
            await wait_until(lambda b=before: len(view.items()) > b or bar.value() > 400)
            if len(view.items()) == before:
                continue  # enough was built above already: nothing came
            builds += 1
            # the turns built above pushed the item down: the view followed it exactly
            await wait_until(lambda a=anchor, y0=y: a.mapTo(view.widget(), QPoint(0, 0)).y() > y0)
            await settled(view)
            assert top_item(view) == (anchor, offset)
        assert builds >= 2
        users = [i.text for i in view.items() if isinstance(i, UserMessage)]
        assert users == [f"question {turn}" for turn in range(TURNS)]


def test_a_short_message_of_the_person_is_a_light_label_that_can_be_selected_and_copied(
    qtbot: Any,
) -> None:
    message = UserMessage("Bonjour, peux-tu relire mon script ?")
    qtbot.addWidget(message)
    message.resize(600, 80)
    message.show()
    body = message.body
    assert isinstance(body, QLabel)
    assert not message.findChildren(QTextBrowser)  # no text browser: ~35 KB, not ~110
    assert body.focusPolicy() == Qt.FocusPolicy.StrongFocus  # reached with Tab
    body.setFocus()
    qtbot.keyClick(body, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    assert body.selectedText() == "Bonjour, peux-tu relire mon script ?"
    QGuiApplication.clipboard().clear()
    qtbot.keyClick(body, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == "Bonjour, peux-tu relire mon script ?"
    # with the mouse: a drag over the first word selects it
    body.setSelection(0, 0)
    start = QPoint(body.margin() + 1, body.margin() + body.fontMetrics().height() // 2)
    qtbot.mousePress(body, Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(body, start + QPoint(40, 0))
    qtbot.mouseRelease(body, Qt.MouseButton.LeftButton, pos=start + QPoint(40, 0))
    assert body.selectedText().startswith("Bon")
    assert "script" not in body.selectedText()


def test_a_message_with_a_word_a_label_cannot_wrap_keeps_the_text_browser(qtbot: Any) -> None:
    path = "/home/personne/projets/" + "tres-long-dossier/" * 6 + "script.py"
    message = UserMessage(f"Regarde {path}")
    qtbot.addWidget(message)
    assert isinstance(message.body, QTextBrowser)  # it wraps anywhere; a label would cut it
    assert message.body.toPlainText() == f"Regarde {path}"
