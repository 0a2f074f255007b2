"""The Réflexion block on its own: live while reasoning streams, folded after, stored ones."""

from __future__ import annotations

from typing import Any

from loki_desktop.core.messages import ChatMessage
from loki_desktop.ui.chat.items import AssistantMessage
from loki_desktop.ui.chat.thinking import LIVE_CHARS, ThinkingBlock, format_duration
from loki_desktop.ui.chat.view import ChatView
from loki_desktop.ui.text.markdown_render import MarkdownRenderer
from loki_desktop.ui.theme import LIGHT
from tests.ui.helpers import wait_until


def make_view(qtbot: Any) -> ChatView:
    view = ChatView(MarkdownRenderer(LIGHT, "Copier"))
    qtbot.addWidget(view)
    view.resize(800, 600)
    view.show()
    return view


def test_durations_read_as_people_say_them() -> None:
    assert format_duration(0.2) == "1 s"
    assert format_duration(12.4) == "12 s"
    assert format_duration(65) == "1 min 05 s"


async def test_the_block_opens_with_the_first_chunk_and_folds_when_the_answer_starts(
    qtbot: Any,
) -> None:
    view = make_view(qtbot)
    view.add_user_message("Combien font 17 × 23 ?")
    view.append_thinking("Je pose ")
    block = view.thinking_block
    assert block is not None
    assert block.running
    assert block.is_open
    assert "réfléchit…" in block.toggle.text()
    view.append_thinking("la multiplication.")
    await wait_until(lambda: "la multiplication." in block.body.toPlainText())

    view.append_text("**391**")
    assert view.thinking_block is None
    assert not block.running
    assert not block.is_open
    assert block.body.isHidden()
    assert block.seconds is not None
    assert "réfléchit" not in block.toggle.text()
    assert block.toggle.text().endswith(" s")
    assert block.text() == "Je pose la multiplication."
    kinds = [type(item).__name__ for item in view.items()]
    assert kinds == ["UserMessage", "ThinkingBlock", "AssistantMessage"]

    block.toggle.click()  # unfolded, it reads in full
    assert block.is_open
    assert block.body.toPlainText() == "Je pose la multiplication."


async def test_reasoning_repaints_are_throttled_and_only_the_new_text_is_written(
    qtbot: Any,
) -> None:
    block = ThinkingBlock()
    qtbot.addWidget(block)
    block.show()
    for index in range(600):  # ~4,400 characters: under the live cap
        block.append(f"mot{index} ")
    assert block.repaints == 0  # nothing is written per chunk
    await wait_until(lambda: block.repaints >= 1)
    await wait_until(lambda: "mot599" in block.body.toPlainText())
    assert block.repaints < 20
    assert block.body.toPlainText() == block.text()


async def test_a_folded_block_writes_nothing_until_it_is_opened(qtbot: Any) -> None:
    block = ThinkingBlock()
    qtbot.addWidget(block)
    block.show()
    block.append("début ")
    block.toggle.click()  # the person folds it while it runs
    assert not block.is_open
    block.append("suite")
    block.flush()
    assert block.body.toPlainText() == ""
    block.toggle.click()
    assert block.body.toPlainText() == "début suite"


async def test_a_stored_answer_shows_its_reasoning_folded_with_its_duration(qtbot: Any) -> None:
    view = make_view(qtbot)
    messages = [
        ChatMessage(role="user", content="Bonjour", id=1),
        ChatMessage(
            role="assistant",
            content="Salut !",
            thinking="L'utilisateur dit bonjour.",
            thinking_seconds=12.2,
            id=2,
        ),
    ]
    view.open(lambda before: messages if before is None else [])
    items = view.items()
    assert [type(item).__name__ for item in items] == [
        "UserMessage",
        "ThinkingBlock",
        "AssistantMessage",
    ]
    block = items[1]
    assert isinstance(block, ThinkingBlock)
    assert not block.is_open
    assert not block.running
    assert block.toggle.text() == "▸ Réflexion — 12 s"
    block.toggle.click()
    assert block.body.toPlainText() == "L'utilisateur dit bonjour."
    assert isinstance(items[2], AssistantMessage)
    assert items[2].markdown() == "Salut !"


async def test_a_tool_call_after_reasoning_folds_it_too(qtbot: Any) -> None:
    view = make_view(qtbot)
    view.append_thinking("Il me faut le fichier.")
    block = view.thinking_block
    assert block is not None
    view.add_tool_call("call_1", "read_file", {"path": "a.txt"})
    assert not block.running
    assert not block.is_open
    view.append_thinking("Je l'ai lu.")  # the next round thinks in a block of its own
    assert view.thinking_block is not None
    assert view.thinking_block is not block


async def test_long_reasoning_shows_its_end_while_it_runs_and_all_of_it_once_done(
    qtbot: Any,
) -> None:
    block = ThinkingBlock()
    qtbot.addWidget(block)
    block.show()
    piece = "une longue phrase sans fin de paragraphe, "
    for _ in range(3 * LIVE_CHARS // len(piece)):
        block.append(piece)
        block.flush()
    # what is laid out at each write stays bounded, whatever the length so far
    assert block.body.document().characterCount() <= LIVE_CHARS
    assert block.body.toPlainText().startswith("…")
    assert block.body.toPlainText().endswith(piece)
    block.finish()
    block.toggle.click()
    assert block.body.toPlainText() == block.text()
    assert len(block.text()) > 2 * LIVE_CHARS
