"""A stored conversation's messages as turns, each built into widgets only when it is shown."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtWidgets import QWidget

from loki_desktop.core.events import CheckReport
from loki_desktop.core.messages import Branches, CallRecord, ChatMessage
from loki_desktop.ui.changes.shell_changes import ShellChangesList
from loki_desktop.ui.changes.undo_note import undo_note_text
from loki_desktop.ui.chat.cards import stored_card
from loki_desktop.ui.chat.items import (
    AssistantMessage,
    CheckCard,
    HarnessNote,
    SkillBadge,
    ToolCard,
    UserMessage,
)
from loki_desktop.ui.chat.thinking import ThinkingBlock
from loki_desktop.ui.text.markdown_render import MarkdownRenderer

# A rough guess of a message's height, only to decide how many turns to build before the
# first frame; what is missing is built as soon as the layout shows it (never shown wrong).
LINE_PX = 21
CHARS_PER_LINE = 90
ITEM_PX = 48

NewToolCard = Callable[[str, str, dict[str, Any]], ToolCard]
# builds the row under a message: (kind, message id, question id, its versions)
NewBar = Callable[[str, int, int, Branches | None], QWidget]


def split_turns(messages: Sequence[ChatMessage]) -> list[list[ChatMessage]]:
    """Messages cut before each one the person wrote: a turn is built (or not) as a whole,
    so its answers share one header and its undo bar finds its cards."""
    turns: list[list[ChatMessage]] = []
    for message in messages:
        starts = message.role == "user" and message.origin != "harness"
        if starts or not turns:
            turns.append([])
        turns[-1].append(message)
    return turns


def estimated_height(turn: Sequence[ChatMessage]) -> int:
    total = 0
    for message in turn:
        text = message.content if message.role in ("user", "assistant") else ""
        lines = len(text) // CHARS_PER_LINE + text.count("\n")
        total += ITEM_PX + LINE_PX * lines + ITEM_PX * len(message.tool_calls)
    return total


class TurnBuilder:
    """Builds a stored turn's widgets; knows the results of the calls of every page loaded."""

    def __init__(self, new_tool_card: NewToolCard) -> None:
        self._new_tool_card = new_tool_card
        self.results: dict[str, ChatMessage] = {}
        self.versions: dict[int, Branches] = {}  # of the messages of the pages loaded
        self.new_bar: NewBar | None = None  # None: no rows under messages (a bare view)

    def learn(self, messages: Sequence[ChatMessage]) -> None:
        for message in messages:
            if message.role == "tool" and message.tool_call_id:
                self.results[message.tool_call_id] = message

    def widgets(self, turn: Sequence[ChatMessage], renderer: MarkdownRenderer) -> list[QWidget]:
        widgets: list[QWidget] = []
        head: AssistantMessage | None = None  # the first answer of the turn
        for message in turn:
            match message:
                case ChatMessage(role="user", origin="harness"):
                    widgets.append(HarnessNote(message.content, undo_note_text(message.meta.undo)))
                case ChatMessage(role="user"):
                    said = message.meta.said
                    words = message.content if said is None else message.content[:said]
                    widgets.append(UserMessage(words, message.images, message.meta.files))
                    skill = message.meta.skill
                    if skill is not None and skill.title:
                        widgets.append(SkillBadge(skill.title, skill.model))
                case ChatMessage(role="assistant"):
                    if message.thinking.strip():
                        widgets.append(ThinkingBlock(message.thinking, message.thinking_seconds))
                    if message.content.strip() or (message.cut and not message.tool_calls):
                        answer = AssistantMessage(renderer)
                        answer.set_markdown(message.content, defer=True)
                        answer.finish(cut=message.cut and not message.tool_calls)
                        if message.meta.figures is not None:
                            answer.show_figures(message.meta.figures)
                        if head is None:
                            head = answer
                        else:
                            head.add_part(answer)
                        widgets.append(answer)
                    widgets += [self._tool_card(call, renderer) for call in message.tool_calls]
                case ChatMessage(role="tool"):
                    if (check := message.meta.check) is not None:
                        widgets.append(check_card(check))
                case ChatMessage(role="system"):  # a summary, a plan, a review
                    if (card := stored_card(message)) is not None:
                        widgets.append(card)
                case _:
                    pass
        return self._with_bars(turn, widgets)

    def _with_bars(self, turn: Sequence[ChatMessage], widgets: list[QWidget]) -> list[QWidget]:
        """The question's row after its message, the answer's at the end of the turn."""
        question = turn[0]
        if self.new_bar is None or question.id is None or question.origin != "user":
            return widgets
        if question.role != "user":
            return widgets
        at = next((i for i, w in enumerate(widgets) if isinstance(w, UserMessage)), 0) + 1
        bars = [self.new_bar("question", question.id, question.id, self.versions.get(question.id))]
        widgets = widgets[:at] + bars + widgets[at:]
        answer = turn[1] if len(turn) > 1 else None
        if answer is not None and answer.role == "assistant" and answer.id is not None:
            widgets.append(
                self.new_bar("answer", answer.id, question.id, self.versions.get(answer.id))
            )
        return widgets

    def _tool_card(self, call: CallRecord, renderer: MarkdownRenderer) -> ToolCard:
        card = self._new_tool_card(call.id, call.name, call.args)
        result = self.results.get(call.id)
        if result is None:
            card.set_interrupted()
            return card
        meta = result.meta
        # worded now, in the window's language (the facts kept), not as written then
        card.set_result(meta.ok, meta.shown_summary, result.content, result.images)
        if meta.change is not None:
            card.set_change(meta.change, renderer)
        if meta.shell_changes:
            card.add_detail(ShellChangesList(meta.shell_changes))
        return card


def check_card(check: CheckReport) -> CheckCard:
    problems = [(p.line, p.col, p.message) for p in check.problems]
    return CheckCard(check.path, check.ok, problems, check.skipped)
