"""Markdown rendering: what is final while streaming, code blocks, safety, throttled repaints."""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtGui import QGuiApplication

from loki_desktop.ui.chat.markdown_view import MarkdownView
from loki_desktop.ui.text.markdown_render import (
    TAIL_LIMIT,
    MarkdownRenderer,
    RenderState,
    find_cut,
    new_parser,
)
from loki_desktop.ui.theme import LIGHT
from tests.fakes.demo_conversation import FINAL_ANSWER, words

md = new_parser()


def test_blocks_before_the_last_one_are_final() -> None:
    tail = "# Titre\n\nUn paragraphe.\n\nUn autre qui gran"
    cut = find_cut(md, tail)
    assert tail[: cut.length] == "# Titre\n\nUn paragraphe.\n\n"
    assert cut.carry == ""
    # a single block may still change (a setext underline, a lazy line): nothing is final
    assert find_cut(md, "Un paragraphe\nqui continue").length == 0
    assert find_cut(md, "").length == 0


def test_an_open_fence_is_never_cut_before_it_grows_past_the_limit() -> None:
    tail = "Voici :\n\n```python\nx = 1\ny = 2\n"
    cut = find_cut(md, tail)
    assert tail[: cut.length] == "Voici :\n\n"  # the paragraph only
    rest = tail[cut.length :]
    assert find_cut(md, rest).length == 0


def test_a_long_open_fence_is_cut_at_a_line_and_carried_on() -> None:
    lines = "".join(f"print({i})\n" for i in range(400))
    tail = "```python\n" + lines + "print(4"  # the last line is still arriving
    assert len(tail) > TAIL_LIMIT
    cut = find_cut(md, tail)
    assert tail[: cut.length].endswith("print(399)\n")
    assert cut.carry == "```python\n"
    assert cut.continues_code


def test_a_long_list_is_cut_between_items() -> None:
    items = "".join(f"{i}. élément numéro {i}\n" for i in range(1, 200))
    cut = find_cut(md, items)
    assert cut.length > 0
    assert items[cut.length :].startswith("199. ")


def test_code_blocks_are_highlighted_and_copyable() -> None:
    renderer = MarkdownRenderer(LIGHT, "Copier")
    state = RenderState()
    html = renderer.render("```python\nimport os\n```\n\n```\nbrut\n```", state)
    assert state.codes == ["import os\n", "brut\n"]
    assert 'href="copy:0"' in html
    assert 'href="copy:1"' in html
    assert "Copier" in html
    assert "<span style=" in html  # pygments colours


def test_raw_html_and_images_from_a_model_are_not_interpreted() -> None:
    renderer = MarkdownRenderer(LIGHT)
    html = renderer.render(
        '<img src="file:///etc/passwd"> ![chat](https://example.org/chat.png) ![x](file:///etc/x)'
    )
    assert "<img" not in html
    assert "&lt;img" in html  # shown as text
    assert '<a href="https://example.org/chat.png">[chat]</a>' in html  # a link, not loaded
    assert 'href="file:' not in html  # markdown-it refuses file: links altogether


async def test_streamed_answer_renders_like_the_finished_one(qtbot: Any) -> None:
    renderer = MarkdownRenderer(LIGHT)
    streamed = MarkdownView(renderer)
    whole = MarkdownView(renderer)
    qtbot.addWidget(streamed)
    qtbot.addWidget(whole)
    text = FINAL_ANSWER * 12  # headings, code, tables, lists, several times
    tokens = words(text)
    for index, token in enumerate(tokens):
        streamed.append(token)
        if index % 25 == 0:
            await asyncio.sleep(0.002)
    streamed.finish()
    whole.set_markdown(text)
    assert streamed.markdown() == text
    assert streamed.plain_text().split() == whole.plain_text().split()
    # repaints are throttled: far fewer renders than tokens
    assert 0 < streamed.renders < len(tokens) / 10
    # each code block can be copied whole
    assert streamed.code(0) == whole.code(0)
    assert streamed.code(11) is not None


async def test_copy_link_puts_the_code_on_the_clipboard(qtbot: Any) -> None:
    from PySide6.QtCore import QUrl

    view = MarkdownView(MarkdownRenderer(LIGHT))
    qtbot.addWidget(view)
    view.set_markdown("Texte\n\n```sh\nls -la\n```\n")
    view._on_link(QUrl("copy:0"))
    assert QGuiApplication.clipboard().text() == "ls -la"


def test_a_long_table_is_cut_between_rows_and_carries_its_head() -> None:
    head = "| n | carré |\n|--:|:--|\n"
    rows = "".join(f"| {i} | {i * i} |\n" for i in range(200))
    tail = head + rows + "| 200 | 4"  # the last row is still arriving
    assert len(tail) > TAIL_LIMIT
    cut = find_cut(md, tail)
    assert tail[: cut.length].endswith("| 198 | 39204 |\n")
    assert cut.carry == head
    assert cut.continues_table
    rest = cut.carry + tail[cut.length :]
    assert find_cut(md, rest).length == 0  # small again


def test_a_continued_table_does_not_show_its_head_again() -> None:
    renderer = MarkdownRenderer(LIGHT)
    html = renderer.render("| a | b |\n|---|---|\n| 1 | 2 |\n", RenderState(continues_table=True))
    assert "<thead>" not in html
    assert "<td>1</td>" in html
    assert "margin-top:0;" in html
    html = renderer.render("| a | b |\n|---|---|\n| 1 | 2 |\n")
    assert "<thead>" in html
    assert "margin-bottom:8px;" in html
    # the part before a cut leaves no gap below, so the two parts read as one table
    html = renderer.render("| a | b |\n|---|---|\n| 1 | 2 |\n", RenderState(table_goes_on=True))
    assert "margin-bottom:0;" in html


def test_a_long_blockquote_or_paragraph_is_cut_at_a_line_end() -> None:
    quote = "".join(f"> ligne {i} d'une longue citation\n" for i in range(80)) + "> fin"
    cut = find_cut(md, quote)
    assert quote[cut.length :] == "> ligne 79 d'une longue citation\n> fin"
    paragraph = "".join(f"ligne {i} d'un long paragraphe\n" for i in range(80)) + "fin"
    cut = find_cut(md, paragraph)
    assert paragraph[cut.length :] == "ligne 79 d'un long paragraphe\nfin"


def test_a_paragraph_is_not_cut_where_the_rest_would_read_differently() -> None:
    # "2." cannot interrupt a paragraph, but alone it would start a list
    lines = "".join(f"ligne {i} d'un long paragraphe\n" for i in range(80))
    paragraph = lines + "2. suite du paragraphe\nfin"
    cut = find_cut(md, paragraph)
    assert paragraph[cut.length :] == "ligne 79 d'un long paragraphe\n2. suite du paragraphe\nfin"
    # a lazy line of a blockquote (no ">") is not where the rest can start
    quote = "".join(f"> ligne {i}\n" for i in range(200)) + "paresseuse\nfin"
    cut = find_cut(md, quote)
    assert quote[cut.length :] == "> ligne 199\nparesseuse\nfin"


async def test_the_tail_stays_small_however_long_a_block_grows(qtbot: Any) -> None:
    renderer = MarkdownRenderer(LIGHT)
    table = "| n | carré |\n|---|---|\n" + "".join(f"| {i} | {i * i} |\n" for i in range(300))
    quote = "".join(f"> phrase {i} d'une longue citation.\n" for i in range(150))
    paragraph = "".join(f"phrase {i} d'un long paragraphe.\n" for i in range(150))
    for text in (table, quote, paragraph):
        streamed = MarkdownView(renderer)
        qtbot.addWidget(streamed)
        longest = 0
        for index, token in enumerate(words(text)):
            streamed.append(token)
            if index % 12 == 0:
                streamed.flush()  # what the repaint timer does
                longest = max(longest, streamed.tail_chars)
        streamed.finish()
        assert longest <= TAIL_LIMIT + 200
        whole = MarkdownView(renderer)
        qtbot.addWidget(whole)
        whole.set_markdown(text)
        assert streamed.plain_text().split() == whole.plain_text().split()
