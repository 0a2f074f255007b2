"""A reopened conversation builds what is near the bottom; the rest comes as it is scrolled to."""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel, QTextBrowser, QWidget

from loki_desktop.core.messages import ChatMessage
from loki_desktop.core.services import Services
from loki_desktop.ui.chat.items import AssistantMessage, UserMessage
from loki_desktop.ui.chat.markdown_view import CHUNK_LIMIT, MarkdownView
from loki_desktop.ui.chat.view import ChatView
from loki_desktop.ui.text.markdown_render import MarkdownRenderer, new_parser, split_blocks
from loki_desktop.ui.theme import LIGHT
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.helpers import open_window, wait_until

TURNS = 12


def long_answer(turn: int) -> str:
    paragraph = f"Réponse {turn} : " + "une phrase assez longue pour remplir la ligne. " * 8
    return "\n\n".join(f"{paragraph} ({n})" for n in range(30))


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


def waiting(view: ChatView) -> int:
    """Chunks of long answers not made yet."""
    return sum(i.body.waiting for i in view.items() if isinstance(i, AssistantMessage))


def built(view: ChatView) -> tuple[int, int]:
    return len(view.items()), len(view.findChildren(QTextBrowser))


def position(view: ChatView, widget: QWidget) -> int:
    return widget.mapTo(view.widget(), QPoint(0, 0)).y() - view.verticalScrollBar().value()


def middle_widget(view: ChatView, fraction: float = 0.5) -> tuple[QWidget, int]:
    """The innermost widget that far down what the view shows (the middle), and its
    distance from the top of the view."""
    area = view.widget()
    middle = view.verticalScrollBar().value() + int(view.viewport().height() * fraction)
    widget = area.childAt(area.width() // 2, middle)
    assert widget is not None
    return widget, position(view, widget)


def text_in_view(view: ChatView) -> tuple[QWidget, int]:
    """A text document whose top edge the view shows, and its distance from the top."""
    height = view.viewport().height()
    for text in view.findChildren(QTextBrowser):
        at = position(view, text)
        if text.isVisible() and 0 <= at < height:
            return text, at
    raise AssertionError("no text starts in the view")


def top_item(view: ChatView) -> tuple[QWidget, int]:
    """The item at the top edge of what the view shows, and its distance from that edge."""
    area = view.widget()
    value = view.verticalScrollBar().value()
    for item in view.items():
        y = item.mapTo(area, QPoint(0, 0)).y()
        if y + item.height() > value:
            return item, y - value
    raise AssertionError("nothing shown")


async def shown_at_bottom(window: Any) -> ChatView:
    """The reopened conversation's view, once it is scrolled to its end."""
    assert window.sessions.current is not None
    view: ChatView = window.sessions.current.view
    bar = view.verticalScrollBar()
    await wait_until(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())
    return view


async def test_a_reopened_long_conversation_builds_only_the_turns_near_the_bottom(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    seed_long(services)
    async with open_window(services, qtbot, ollama.url) as window:
        view = await shown_at_bottom(window)
        bar = view.verticalScrollBar()
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
        view = await shown_at_bottom(window)
        bar = view.verticalScrollBar()
        await settled(view)
        assert waiting(view) > 0  # the last long answer's first chunk is not made yet
        builds = 0
        for _step in range(1000):
            if not view.has_more and not waiting(view) and bar.value() == 0:
                break
            before = built(view)
            bar.setValue(max(0, bar.value() - 3 * bar.singleStep() - 60))  # a wheel notch or so
            shown, offset = middle_widget(view)
            await settled(view)
            # what was in the middle of the view is still there, to the pixel
            assert position(view, shown) == offset
            builds += built(view) != before
        else:
            raise AssertionError("the view never built everything")
        assert builds >= 4
        users = [i.text for i in view.items() if isinstance(i, UserMessage)]
        assert users == [f"question {turn}" for turn in range(TURNS)]
        answers = [i for i in view.items() if isinstance(i, AssistantMessage)]
        assert [a.markdown() for a in answers] == [long_answer(t) for t in range(TURNS)]
        assert "Réponse 0 : une phrase" in answers[0].body.plain_text()


async def test_what_the_person_reads_above_stays_put_while_an_answer_streams_below(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    seed_long(services)
    async with open_window(services, qtbot, ollama.url) as window:
        view = await shown_at_bottom(window)
        bar = view.verticalScrollBar()
        lines = [f"ligne {i} du flot\n\n" for i in range(400)]
        ollama.script(Reply.text(*lines, token_delay=0.01))
        window.composer.set_text("encore une question")
        window.composer.submit()
        await wait_until(lambda: view.streaming_message is not None)
        # the person scrolls up a page to read: the older chunks above come within reach
        # and are built
        before = built(view)
        bar.setValue(bar.value() - view.viewport().height())
        shown, offset = text_in_view(view)
        await wait_until(lambda: built(view) != before, what="something older was built")
        answer = view.streaming_message
        assert answer is not None
        streamed = len(answer.markdown())
        # the answer grows below; what the person reads does not move with it
        await wait_until(
            lambda: len(answer.markdown()) > streamed + 500 and position(view, shown) == offset,
            what="the place kept while the answer streams",
        )
        assert not view.following
        window.sessions.stop_current()
        await wait_until(lambda: not window.sessions.current.runner.busy)


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


def test_a_long_stored_answer_is_made_chunk_by_chunk_from_the_bottom_up(qtbot: Any) -> None:
    text = "\n\n".join(
        f"Paragraphe {n} : " + "mot " * 60 + f"\n\n```python\nprint({n})\n```" for n in range(30)
    )
    pieces = split_blocks(new_parser(), text, CHUNK_LIMIT)
    assert "".join(pieces) == text
    assert len(pieces) >= 3
    assert all(len(piece) >= CHUNK_LIMIT for piece in pieces[:-1])
    view = MarkdownView(MarkdownRenderer(LIGHT))
    qtbot.addWidget(view)
    view.set_markdown(text, defer=True)
    assert view.waiting == len(pieces) - 1
    (last,) = view.findChildren(QTextBrowser)  # only the bottom chunk is a document
    assert "print(29)" in last.toPlainText()
    view.build_previous()
    assert view.waiting == len(pieces) - 2
    (made,) = [chunk for chunk in view.findChildren(QTextBrowser) if chunk is not last]
    # its copy links count the code blocks of the whole answer: each copies its own block
    numbers = [int(n) for n in re.findall(r'href="copy:(\d+)"', made.toHtml())]
    assert numbers
    for number in numbers:
        assert view.code(number) == f"print({number})\n"
        assert f"print({number})" in made.toPlainText()
    assert view.plain_text().index("Paragraphe 0 ") < view.plain_text().index("Paragraphe 29 ")
    assert view.waiting == 0
