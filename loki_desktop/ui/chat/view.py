"""The chat view: a column of messages and cards, loaded a page at a time, that follows a stream."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from PySide6.QtCore import QMargins, QPoint, Qt, QTimer, Signal
from PySide6.QtWidgets import QScrollArea, QVBoxLayout, QWidget
from shiboken6 import isValid

from loki_desktop.core.answer_stats import AnswerStats
from loki_desktop.core.events import (
    ChangedFile,
    Compacted,
    CutArgument,
    Plan,
    RecalledItem,
    Review,
)
from loki_desktop.core.file_change import FileChange
from loki_desktop.core.i18n import _
from loki_desktop.core.image_attachment import ImageAttachment
from loki_desktop.core.message_meta import FileChip as ChipInfo
from loki_desktop.core.messages import Branches, ChatMessage
from loki_desktop.ui.changes.shell_changes import ShellChangesList
from loki_desktop.ui.chat.answer_figures import AnswerFigures
from loki_desktop.ui.chat.args_view import cut_note
from loki_desktop.ui.chat.branch_bar import BranchBar
from loki_desktop.ui.chat.cards import plan_card, review_card, summary_card
from loki_desktop.ui.chat.history import TurnBuilder, estimated_height, split_turns
from loki_desktop.ui.chat.items import (
    AssistantMessage,
    CheckCard,
    ErrorCard,
    NoticeLine,
    SkillBadge,
    ToolCard,
    UserMessage,
)
from loki_desktop.ui.chat.markdown_view import MarkdownView
from loki_desktop.ui.chat.memory_items import MemorisedCard, RecallBadge
from loki_desktop.ui.chat.thinking import ThinkingBlock
from loki_desktop.ui.qt_helpers import label
from loki_desktop.ui.text.markdown_render import MarkdownRenderer

PAGE_SIZE = 40  # messages read from the store at a time
# Older turns are built when less than this is built above what the view shows: a reopened
# conversation lays out what is on screen, not its whole page (a long answer laid out holds
# ~1.3 MB of C heap, and glibc keeps the peak of the largest view opened).
BUILD_AHEAD_PX = 400
COLUMN_MAX_WIDTH = 900

W = TypeVar("W", bound=QWidget)
PageLoader = Callable[[int | None], list[ChatMessage]]


WRITE_TOOLS = ("write_file", "edit_file")  # the tools a review before writing stops


def _same_path(asked: str, planned: str) -> bool:
    """The model's path argument ("./src/a.py") and the change's workspace-relative path."""
    return asked.strip().replace("\\", "/").removeprefix("./") == planned


class ChatView(QScrollArea):
    """Small mutators for a live turn, and `open` for a stored conversation (lazily)."""

    retry_requested = Signal()
    following_changed = Signal(bool)  # the view follows the newest message (or was scrolled up)
    older_loaded = Signal()  # a page of older messages came (their turns' undo bars follow)
    # an answer's figures (core.answer_stats.AnswerStats), or None when the view is cleared:
    # the composer's context bar follows them
    figures_shown = Signal(object)
    # the rows under stored messages (ui.chat.branch_bar), passed on to the session
    step_requested = Signal(int, int)  # message id, -1 or +1
    edit_requested = Signal(int)  # the person's message id
    # the person's message id, the server and the model ("", "": the ones in use)
    regenerate_requested = Signal(int, str, str)

    def __init__(self, renderer: MarkdownRenderer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.renderer = renderer
        self.setObjectName("ChatScroll")
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        area = QWidget()
        area.setObjectName("ChatArea")
        self.setWidget(area)
        # centred by side margins, not by alignment: the layout then asks the column its
        # height at the width it really has (aligned, it was asked at the whole width, where
        # texts wrap shorter, and the cards at the bottom were cut); see _place_column
        outer = QVBoxLayout(area)
        outer.setContentsMargins(0, 0, 0, 0)
        column = QWidget()
        column.setObjectName("ChatColumn")
        column.setMaximumWidth(COLUMN_MAX_WIDTH)
        outer.addWidget(column, 1)
        self._outer = outer
        self._scrolls = False
        self._column = column
        self._layout = QVBoxLayout(column)
        self._layout.setContentsMargins(24, 18, 24, 18)
        self._layout.setSpacing(12)
        self._older = label(_("Chargement des messages plus anciens…"), "Notice")
        self._older.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._older.hide()
        self._layout.addWidget(self._older)
        self._layout.addStretch(1)
        self._streaming: AssistantMessage | None = None
        self.last_figures: AnswerStats | None = None  # the newest answer's, this session
        self._last_answer: AssistantMessage | None = None  # the live turn's, for its figures
        self._turn_head: AssistantMessage | None = None  # the live turn's first answer
        self._retried: ErrorCard | None = None  # its Réessayer runs now
        self._thinking: ThinkingBlock | None = None
        self._tool_cards: dict[str, ToolCard] = {}
        self._builder = TurnBuilder(self._new_tool_card)
        # the versions of a page's messages (the store's `branches`); None: no rows under them
        self.versions_of: Callable[[list[int]], dict[int, Branches]] | None = None
        self.models: Callable[[], list[tuple[str, str]]] = list  # (server, model): Régénérer avec…
        self._unbuilt: list[list[ChatMessage]] = []  # turns loaded but not built, oldest first
        self._waiting_answers: list[MarkdownView] = []  # long stored answers partly made
        self._loader: PageLoader | None = None
        self._oldest_id: int | None = None
        self._has_more = False
        self._follow = True
        # a widget kept where it is on screen while content is built above it (until the
        # person scrolls): not the distance from the bottom, which a streaming answer changes
        self._anchor: tuple[QWidget, int] | None = None
        self._adjusting = False
        # *Oublier* on a « Mémorisé » card (the window sets it: it owns the memories)
        self.forget_memory: Callable[[int], None] | None = None
        # timers owned by the view: they die with it (a bare singleShot could fire after)
        self._place_timer = self._zero_timer(self._keep_place)
        self._older_timer = self._zero_timer(self._load_if_needed)
        bar = self.verticalScrollBar()
        bar.rangeChanged.connect(self._on_range)
        bar.valueChanged.connect(self._on_value)

    def _new_bar(
        self, kind: str, message_id: int, question_id: int, versions: Branches | None
    ) -> BranchBar:
        bar = BranchBar(kind, message_id, question_id, versions, self.models)
        bar.step_requested.connect(self.step_requested)
        bar.edit_requested.connect(self.edit_requested)
        bar.regenerate_requested.connect(self.regenerate_requested)
        return bar

    def branch_bars(self) -> list[BranchBar]:
        return [w for w in self._widgets() if isinstance(w, BranchBar)]

    def add_question_bar(self, question_id: int, versions: Branches | None) -> BranchBar | None:
        """The row under the person's last message, once its live turn is stored."""
        asked = [w for w in self._widgets() if isinstance(w, UserMessage)]
        if not asked:
            return None
        bar = self._new_bar("question", question_id, question_id, versions)
        self._layout.insertWidget(self._layout.indexOf(asked[-1]) + 1, bar)
        return bar

    def add_answer_bar(
        self, answer_id: int, question_id: int, versions: Branches | None
    ) -> BranchBar:
        """The answer's row after a live turn (a stored one gets it when built)."""
        return self._add(self._new_bar("answer", answer_id, question_id, versions))

    def _zero_timer(self, slot: Callable[[], object]) -> QTimer:
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.setInterval(0)
        timer.timeout.connect(slot)
        return timer

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self._place_column()

    def _place_column(self) -> None:
        """The column centred in the width the view has once its scroll bar shows (a stable
        gutter: the column does not move sideways when the bar appears or goes)."""
        bar_width = self.verticalScrollBar().sizeHint().width()
        room = self.contentsRect().width() - bar_width  # the same whether the bar shows or not
        bar = 0 if self._scrolls else bar_width  # its place, kept empty while it is hidden
        width = min(COLUMN_MAX_WIDTH, room)
        left = (room - width) // 2
        right = room - width - left + bar
        self._column.setFixedWidth(width)
        if self._outer.contentsMargins() != QMargins(left, 0, right, 0):
            self._outer.setContentsMargins(left, 0, right, 0)

    # --- reading the view (tests, the window) ----------------------------------------

    def items(self) -> list[QWidget]:
        """The items built, top to bottom (the older turns of a page are built when scrolled
        to: `has_more` says some are not); the rows under messages are not items."""
        return [w for w in self._widgets() if not isinstance(w, BranchBar)]

    def _widgets(self) -> list[QWidget]:
        found = []
        for index in range(self._layout.count()):
            item = self._layout.itemAt(index)
            widget = item.widget() if item is not None else None
            if widget is not None and widget is not self._older:
                found.append(widget)
        return found

    def tool_card(self, call_id: str) -> ToolCard | None:
        return self._tool_cards.get(call_id)

    @property
    def streaming_message(self) -> AssistantMessage | None:
        return self._streaming

    @property
    def thinking_block(self) -> ThinkingBlock | None:
        """The reasoning block of the round under way (None once the answer started)."""
        return self._thinking

    @property
    def has_more(self) -> bool:
        """Older messages are not shown yet: turns loaded but not built, or pages not loaded."""
        return self._has_more or bool(self._unbuilt)

    # --- a stored conversation ---------------------------------------------------------

    def clear(self) -> None:
        for widget in self._widgets():
            self._layout.removeWidget(widget)
            widget.deleteLater()
        self._streaming = None
        self._last_answer = None
        self._turn_head = None
        self._retried = None
        self._thinking = None
        self._tool_cards.clear()
        self._builder.results.clear()
        self._builder.versions.clear()
        self._unbuilt = []
        self._waiting_answers = []
        self._loader = None
        self._oldest_id = None
        self._has_more = False
        self._set_follow(True)
        self._anchor = None
        self.last_figures = None
        self.figures_shown.emit(None)

    def open(self, loader: PageLoader) -> None:
        """Show the latest turns of a conversation; older ones are built when scrolled to."""
        self.clear()
        self._loader = loader
        self._has_more = True
        # the view is not laid out yet: the window's height bounds what is on screen
        self.load_older(self.window().height() + BUILD_AHEAD_PX)

    def load_older(self, wanted_px: int = BUILD_AHEAD_PX) -> int:
        """Build the turns before the oldest shown, about `wanted_px` high (a guess), loading
        the previous page when none is left; returns how many messages were built."""
        if not self._unbuilt:
            self._load_page()
        turns: list[list[ChatMessage]] = []
        height = 0
        while self._unbuilt and height < wanted_px:
            turns.insert(0, self._unbuilt.pop())
            height += estimated_height(turns[0])
        self._older.setVisible(self.has_more)
        if not turns:
            return 0
        shown = self.items()
        if shown:
            # keep what the user is looking at in place while content grows above it
            self._hold(shown[0])
        widgets = [w for turn in turns for w in self._builder.widgets(turn, self.renderer)]
        self._waiting_answers += [
            w.body for w in widgets if isinstance(w, AssistantMessage) and w.body.waiting
        ]
        for offset, widget in enumerate(widgets):
            self._layout.insertWidget(1 + offset, widget)
        self.older_loaded.emit()
        return sum(len(turn) for turn in turns)

    def _load_page(self) -> None:
        """The page before the oldest message loaded, kept as turns to build."""
        if self._loader is None or not self._has_more:
            return
        messages = self._loader(self._oldest_id)
        if len(messages) < PAGE_SIZE:
            self._has_more = False
        if messages:
            self._oldest_id = messages[0].id
            self._builder.learn(messages)
            if self.versions_of is not None:
                self._builder.new_bar = self._new_bar
                ids = [m.id for m in messages if m.id is not None]
                self._builder.versions.update(self.versions_of(ids))
            self._unbuilt = split_turns(messages)

    # --- a live turn -------------------------------------------------------------------

    def add_user_message(
        self,
        text: str,
        images: Sequence[ImageAttachment] = (),
        files: Sequence[ChipInfo] = (),
    ) -> UserMessage:
        self.end_answer()
        self._set_follow(True)
        self._turn_head = None
        for item in self.items():
            if isinstance(item, ErrorCard):
                # a retry answers the newest message: an older card no longer can
                item.leave_behind()
        return self._add(UserMessage(text, images, files))

    def add_skill_badge(self, title: str, model: str = "") -> SkillBadge:
        return self._add(SkillBadge(title, model))

    def add_intelligence(self, event: Compacted | Plan | Review) -> QWidget:
        """A summary of earlier exchanges, the turn's plan, or what the review did."""
        self.end_answer()
        match event:
            case Compacted(summary=summary):
                return self._add(summary_card(summary))
            case Plan(steps=steps):
                return self._add(plan_card(steps))
            case Review(summary=summary, changed=changed):
                return self._add(review_card(summary, changed))

    def append_thinking(self, text: str) -> None:
        """Reasoning streams in its own block, open while it runs."""
        if self._thinking is None:
            self.end_answer()
            self._thinking = self._add(ThinkingBlock())
        self._thinking.append(text)

    def end_thinking(self) -> None:
        """The answer (or a tool call) starts: the reasoning folds, its duration kept."""
        if self._thinking is not None:
            self._thinking.finish()
            self._thinking = None

    def append_text(self, text: str) -> None:
        self.end_thinking()
        if self._streaming is None:
            self._streaming = self._add(AssistantMessage(self.renderer))
            self._last_answer = self._streaming
            if self._turn_head is None:
                self._turn_head = self._streaming
            else:
                self._turn_head.add_part(self._streaming)
        self._streaming.append_text(text)

    def end_answer(self, *, cut: bool = False) -> None:
        self.end_thinking()
        if self._streaming is not None:
            self._streaming.finish(cut=cut)
            self._streaming = None

    def show_figures(self, stats: AnswerStats) -> AnswerFigures | None:
        """The turn's figures, under its last answer (none when it wrote no answer)."""
        answer, self._last_answer = self._last_answer, None
        self.end_answer()
        self.last_figures = stats
        self.figures_shown.emit(stats)
        return answer.show_figures(stats) if answer is not None else None

    def add_tool_call(
        self, call_id: str, name: str, args: dict[str, Any], cut: Sequence[CutArgument] = ()
    ) -> ToolCard:
        self.end_answer()
        return self._add(self._new_tool_card(call_id, name, args, cut_note(cut)))

    def set_tool_result(
        self,
        call_id: str,
        ok: bool,
        summary: str,
        output: str,
        images: Sequence[ImageAttachment] = (),
        change: FileChange | None = None,
        shell_changes: Sequence[ChangedFile] = (),
    ) -> None:
        card = self._tool_cards.get(call_id)
        if card is not None:
            card.set_result(ok, summary, output, images)
            if change is not None:
                card.set_change(change, self.renderer)
            if shell_changes:
                card.add_detail(ShellChangesList(shell_changes))

    def tool_waiting(self, command: str) -> None:
        """run_shell waits for the person's answer: its card says so (not EN COURS)."""
        card = self._shell_card(command)
        if card is not None:
            card.set_waiting()

    def tool_answered(self, command: str, allowed: bool) -> None:
        card = self._shell_card(command)
        if card is not None:
            card.set_answered(allowed)

    def write_waiting(self, path: str) -> None:
        """A write waits for review (Demander avant d'écrire): its card says so."""
        card = self._write_card(path)
        if card is not None:
            card.set_waiting()

    def write_answered(self, path: str, allowed: bool) -> None:
        card = self._write_card(path)
        if card is not None:
            card.set_answered(allowed)

    def waiting_kind(self) -> str:
        """What waits for the person: "write", "shell" or "" (nothing)."""
        for card in reversed(self._tool_cards.values()):
            if card.state == "waiting":
                return "shell" if card.name == "run_shell" else "write"
        return ""

    def _write_card(self, path: str) -> ToolCard | None:
        """The newest running write_file or edit_file card for `path`."""
        for card in reversed(self._tool_cards.values()):
            writing = card.name in WRITE_TOOLS and card.state in ("running", "waiting")
            if writing and _same_path(str(card.args.get("path", "")), path):
                return card
        return None

    def _shell_card(self, command: str) -> ToolCard | None:
        """The newest running run_shell card for `command`."""
        for card in reversed(self._tool_cards.values()):
            running = card.name == "run_shell" and card.state in ("running", "waiting")
            if running and str(card.args.get("command", "")).strip() == command:
                return card
        return None

    def waiting_for_approval(self) -> bool:
        return any(card.state == "waiting" for card in self._tool_cards.values())

    def interrupt_tools(self) -> None:
        for card in self._tool_cards.values():
            if card.state in ("running", "waiting"):
                card.set_interrupted()

    def add_check(
        self,
        path: str,
        ok: bool,
        problems: Sequence[tuple[int, int, str]],
        skipped: str | None = None,
    ) -> CheckCard:
        self.end_answer()
        return self._add(CheckCard(path, ok, problems, skipped))

    def add_notice(self, message: str) -> NoticeLine:
        self.end_answer()
        return self._add(NoticeLine(message))

    def add_recall(self, items: Sequence[RecalledItem]) -> RecallBadge:
        return self._add(RecallBadge(items))

    def add_memorised(self, memory_id: int, text: str) -> MemorisedCard:
        self.end_answer()
        return self._add(MemorisedCard(memory_id, text, self.forget_memory))

    def add_error(self, message: str, *, can_retry: bool = True) -> ErrorCard:
        self.end_answer(cut=True)
        card = self._add(ErrorCard(message, can_retry=can_retry))
        card.retry_requested.connect(lambda: self._retry(card))
        return card

    def _retry(self, card: ErrorCard) -> None:
        self._retried = card
        self._turn_head = None  # the retry's answer gets its own header
        self.retry_requested.emit()

    def back_online(self) -> None:
        """The server is back: the cards that said it was not change their words."""
        for item in self.items():
            if isinstance(item, ErrorCard):
                item.set_back_online()

    def last_error(self) -> ErrorCard | None:
        errors = [item for item in self.items() if isinstance(item, ErrorCard)]
        return errors[-1] if errors else None

    def turn_ended(self, reason: str) -> None:
        """A retried turn is over: its old card goes (answered now, or replaced by the new
        one); a retry that was stopped leaves it, to try again."""
        card, self._retried = self._retried, None
        if card is None:
            return
        if reason == "cancelled":
            card.enable_retry()
            return
        self._layout.removeWidget(card)
        card.deleteLater()

    def add_card(self, card: W) -> W:
        """A card of another feature (an MCP server's sampling request), at the end."""
        return self._add(card)

    def place_after_turn(self, call_id: str, widget: QWidget) -> bool:
        """Put `widget` at the end of the turn holding the card `call_id` (before the next
        message the person wrote); False when that card is not shown."""
        card = self._tool_cards.get(call_id)
        if card is None:
            return False
        index = self._layout.indexOf(card) + 1
        end = self._layout.count() - 1  # the stretch
        while index < end:
            item = self._layout.itemAt(index)
            if item is not None and isinstance(item.widget(), UserMessage):
                break
            index += 1
        self._layout.insertWidget(index, widget)
        return True

    def _new_tool_card(
        self, call_id: str, name: str, args: dict[str, Any], note: str = ""
    ) -> ToolCard:
        card = ToolCard(call_id, name, args, note)
        self._tool_cards[call_id] = card
        return card

    def _add(self, widget: W) -> W:
        self._layout.insertWidget(self._layout.count() - 1, widget)
        return widget

    # --- scrolling: follow the stream, keep the place when older pages arrive ---------

    @property
    def following(self) -> bool:
        return self._follow

    def _set_follow(self, follow: bool) -> None:
        if follow != self._follow:
            self._follow = follow
            self.following_changed.emit(follow)

    def scroll_to_bottom(self) -> None:
        self._set_follow(True)
        self._anchor = None
        self._set_value(self.verticalScrollBar().maximum())

    def _set_value(self, value: int) -> None:
        self._adjusting = True
        try:
            self.verticalScrollBar().setValue(value)
        finally:
            self._adjusting = False

    def _on_range(self, minimum: int, maximum: int) -> None:
        if self._scrolls != (maximum > minimum):
            self._scrolls = maximum > minimum
            self._place_column()
        self._keep_place()
        # the scroll area may move the bar again after this signal: look once more after it
        self._place_timer.start()

    def _keep_place(self) -> None:
        bar = self.verticalScrollBar()
        if self._anchor is not None and not isValid(self._anchor[0]):
            self._anchor = None  # deleted (a retried error card)
        if self._follow:
            self._set_value(bar.maximum())
        elif self._anchor is not None:
            widget, offset = self._anchor
            self._set_value(self._y_of(widget) - offset)
        if self._needs_more(bar.value()):
            self._older_timer.start()

    def _hold(self, widget: QWidget) -> None:
        """Keep `widget` where it is on screen while what is above it changes height (when
        following the bottom, the bottom is kept instead)."""
        if not self._follow:
            self._anchor = (widget, self._y_of(widget) - self.verticalScrollBar().value())

    def _y_of(self, widget: QWidget) -> int:
        return widget.mapTo(self._column, QPoint(0, 0)).y() + self._column.y()

    def _needs_more(self, value: int) -> bool:
        """Less than BUILD_AHEAD_PX is built above what is shown (or the view is not filled)."""
        return (self.has_more and value < BUILD_AHEAD_PX) or self._next_waiting(value) is not None

    def _next_waiting(self, value: int) -> MarkdownView | None:
        """A long answer whose chunks not made yet end less than BUILD_AHEAD_PX above the top
        of what is shown."""
        self._waiting_answers = [body for body in self._waiting_answers if body.waiting]
        for body in self._waiting_answers:
            if self._y_of(body) + body.waiting_bottom() > value - BUILD_AHEAD_PX:
                return body
        return None

    def _load_if_needed(self) -> None:
        """Build what comes next above: a chunk of a long answer, or older turns. One at a
        time: the place is kept from the bottom, and the range change looks again."""
        bar = self.verticalScrollBar()
        body = self._next_waiting(bar.value())
        if body is not None:
            self._hold(body.top_chunk())
            body.build_previous()
        elif self.has_more and bar.value() < BUILD_AHEAD_PX:
            self.load_older()

    def _on_value(self, value: int) -> None:
        if self._adjusting:
            return
        bar = self.verticalScrollBar()
        self._anchor = None
        self._set_follow(value >= bar.maximum() - 8)
        if self._needs_more(value):
            self._older_timer.start()
