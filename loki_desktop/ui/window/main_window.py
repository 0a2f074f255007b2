"""The main window: conversations on the left, the chat and its composer, the Problems panel."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDragMoveEvent, QDropEvent, QTextCursor
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QMainWindow,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from loki_desktop.core.export.formats import known_secrets
from loki_desktop.core.i18n import _
from loki_desktop.core.mcp.host import SamplingPolicy
from loki_desktop.ui.chat.attachments import Attachments
from loki_desktop.ui.chat.composer import Composer
from loki_desktop.ui.chat.conversation_instructions import ConversationInstructionsDialog
from loki_desktop.ui.chat.conversations import ConversationList
from loki_desktop.ui.chat.export import ask_and_export
from loki_desktop.ui.chat.extracted_bar import EndOfConversation, ExtractedBar
from loki_desktop.ui.chat.stream_status import StreamStatus
from loki_desktop.ui.chat.welcome import WelcomePage
from loki_desktop.ui.mcp.composer import McpComposer
from loki_desktop.ui.mcp.host import WindowMcpHost
from loki_desktop.ui.models.downloads import ModelDownloads
from loki_desktop.ui.qt_helpers import OwnedTasks, label
from loki_desktop.ui.runtime import Runtime
from loki_desktop.ui.sessions import Session, Sessions
from loki_desktop.ui.text.rendering import ThemedRenderer
from loki_desktop.ui.theme import Theme, app_icon
from loki_desktop.ui.window.backend_status import SERVER_ROLE
from loki_desktop.ui.window.compact_bar import CompactBar
from loki_desktop.ui.window.fit import place_window
from loki_desktop.ui.window.header import Header
from loki_desktop.ui.window.notice_bar import NoticeBar
from loki_desktop.ui.window.server_status import ServerStatus
from loki_desktop.ui.window.settings_opener import SettingsOpener
from loki_desktop.ui.window.shortcuts import install_shortcuts
from loki_desktop.ui.window.sidebar import Sidebar
from loki_desktop.ui.window.state import restore_arrangement, save_arrangement
from loki_desktop.ui.window.turn_errors import Banner, watch_turn
from loki_desktop.ui.workspace.folder import Workspace
from loki_desktop.ui.workspace.problems import ProblemsFeed, ProblemsPanel


class MainWindow(QMainWindow):
    """Builds and arranges the widgets, and wires them to what is not a widget: the open
    conversations (Sessions), the model server (ServerStatus), the workspace, the theme's
    renderer and the settings dialog."""

    quit_requested = Signal()

    def __init__(self, runtime: Runtime, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runtime = runtime
        self.theme = theme
        self.tasks = OwnedTasks()
        self.keep_in_tray = False  # set by the app when a system tray shows Loki's icon
        self.rendering = ThemedRenderer(theme, self)
        self.setWindowTitle("Loki")
        self.setWindowIcon(app_icon())
        self.setAcceptDrops(True)  # images dropped anywhere on the window join the message
        self._build()
        self._wire()
        self.compact_bar = CompactBar(self.header, self.splitter, self.conversations, self)
        self.sidebar = Sidebar(runtime, self.conversations, self.composer, self)
        # MCP servers' own requests (forms, sampling) and the composer's "/" and "@"
        self.mcp_host = self._connect_mcp_host()
        self.mcp_composer = McpComposer(self.composer, runtime)
        self._restore_state()
        place_window(self, self.runtime.settings.ui)
        install_shortcuts(self, self)

    def _connect_mcp_host(self) -> WindowMcpHost:
        """The window's host, given to the runtime before its MCP servers start."""
        runtime = self.runtime

        def set_policy(server_id: str, policy: SamplingPolicy) -> None:
            service = runtime.mcp
            self.tasks.spawn(service.edit(lambda: service.set_sampling(server_id, policy)))

        host = WindowMcpHost(
            self,
            view=lambda: self.sessions.current.view if self.sessions.current else None,
            model=lambda: runtime.settings.model,
            set_policy=set_policy,
            notify=lambda message: self.notice_bar.show_messages([message]),
        )
        runtime.mcp_host = host
        return host

    # --- building -------------------------------------------------------------------

    def _build(self) -> None:
        self.conversations = ConversationList(
            lambda: self.runtime.store, workspace=self.runtime.workspace
        )
        self.header = header = Header(self.runtime)
        # the header's controls, by their names (the compact bar, the shortcuts use them)
        self.title, self.model_caption = header.title, header.model_caption
        self.model_picker, self.model_marks = header.model_picker, header.model_marks
        self.workspace_picker, self.preview = header.workspace_picker, header.preview
        self.problems_button, self.settings_button = header.problems_button, header.settings_button
        self.banner = Banner()
        self.notice_bar = NoticeBar()
        self.notice_bar.show_messages(self.runtime.startup_notices)
        self.extracted = ExtractedBar(self.runtime.forget_memory)
        self.index_line = label("", "FieldHelp")
        self.index_line.setObjectName("IndexProgress")
        self.index_line.hide()
        self.welcome = WelcomePage()
        self.downloads = ModelDownloads(self.runtime, self.welcome, self)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.welcome)
        self.composer = Composer()
        self.conversations.type_target = self.composer.input  # what the list gets typed
        self.problems = ProblemsPanel()
        self.problems_feed = ProblemsFeed(self.problems)
        self.right_splitter = QSplitter(Qt.Orientation.Vertical)
        self.right_splitter.setObjectName("RightSplitter")
        self.right_splitter.addWidget(self._build_chat_area())
        self.right_splitter.addWidget(self.problems)
        self.right_splitter.setStretchFactor(0, 1)
        self.right_splitter.setChildrenCollapsible(False)
        self.problems.hide()
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("MainSplitter")
        self.splitter.addWidget(self.conversations)
        self.splitter.addWidget(self._build_right())
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([280, 960])
        self.setCentralWidget(self.splitter)

    def _build_chat_area(self) -> QWidget:
        chat_area = QWidget()
        chat_area.setObjectName("ChatArea")
        chat_layout = QVBoxLayout(chat_area)
        chat_layout.setContentsMargins(0, 0, 0, 0)
        chat_layout.setSpacing(0)
        chat_layout.addWidget(self.stack, 1)
        self.stream_status = StreamStatus()
        chat_layout.addWidget(self.stream_status)
        composer_box = QHBoxLayout()
        composer_box.setContentsMargins(24, 8, 24, 16)
        composer_box.addWidget(self.composer)
        chat_layout.addLayout(composer_box)
        return chat_area

    def _build_right(self) -> QWidget:
        right = QWidget()
        right.setObjectName("Central")
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.setSpacing(0)
        right_layout.addWidget(self.header)
        banner_box = QVBoxLayout()
        banner_box.setContentsMargins(16, 12, 16, 0)
        banner_box.addWidget(self.banner)
        banner_box.addWidget(self.notice_bar)
        banner_box.addWidget(self.extracted)
        banner_box.addWidget(self.index_line)
        banner_box.addWidget(self.downloads.panel)
        right_layout.addLayout(banner_box)
        right_layout.addWidget(self.right_splitter, 1)
        return right

    # --- wiring -------------------------------------------------------------------------

    def _wire(self) -> None:
        """What is not a widget, and the signals between it and the widgets."""
        runtime, tasks = self.runtime, self.tasks
        self.sessions = Sessions(
            runtime, self.conversations, self.stack, lambda: self.rendering.renderer, tasks, self
        )
        self.server_status = ServerStatus(
            runtime,
            tasks,
            self.banner,
            self.model_picker,
            self.model_marks,
            self.composer,
            self.downloads,
            self,
        )
        self.workspace = Workspace(
            runtime,
            self.workspace_picker,
            self.preview,
            self.problems_feed,
            tasks,
            self.header.agents_md,
        )
        self.workspace.on_index_progress = self._index_progress
        self.settings_opener = SettingsOpener(runtime, self.theme, self)
        self._wire_sessions()
        self.banner.retry_requested.connect(self.server_status.check)
        self.banner.settings_requested.connect(self.settings_opener.open)
        self.settings_button.clicked.connect(self.settings_opener.open)
        self.settings_opener.applied.connect(self.server_status.check)
        self.settings_opener.applied.connect(self.workspace.follow_settings)
        self.settings_opener.closed.connect(self.preview.refresh)
        self.downloads.model_ready.connect(self.server_status.check)
        self.downloads.model_ready.connect(self.composer.input.setFocus)
        self.problems_button.toggled.connect(self._show_problems)
        self.problems.count_changed.connect(self.header.show_problem_count)
        self.rendering.changed.connect(self.sessions.set_renderer)

    def _wire_sessions(self) -> None:
        sessions = self.sessions
        self.conversations.selected.connect(sessions.open_conversation)
        self.conversations.new_requested.connect(sessions.new_conversation)
        self.conversations.delete_confirmed.connect(sessions.delete_conversation)
        self.conversations.renamed.connect(self._on_renamed)
        self.conversations.instructions_requested.connect(self.edit_instructions)
        self.conversations.export_requested.connect(self.export_conversation)
        self.welcome.suggestion_chosen.connect(self.composer.suggest)
        self.composer.send_requested.connect(sessions.send)
        self.composer.stop_requested.connect(sessions.stop_current)
        self.problems.fix_requested.connect(sessions.send_new)
        sessions.opened.connect(
            lambda session: watch_turn(session, self.tasks, self.server_status.check, self.banner)
        )
        sessions.opened.connect(self._follow_figures)
        sessions.shown.connect(self._on_shown)
        # texts that describe a state follow it
        sessions.shown.connect(lambda session: self.banner.set_list_below(session is None))
        self.banner.back_online.connect(sessions.back_online)
        self.workspace_picker.shown.connect(self.welcome.set_folder)
        self.end_of_conversation = EndOfConversation(self.runtime, self.extracted, self.tasks)
        sessions.shown.connect(
            lambda session: self.end_of_conversation.shown(session.id if session else None)
        )
        sessions.busy_changed.connect(self._on_busy)
        sessions.send_refused.connect(self.composer.keep_draft)
        sessions.models = self._installed_models
        sessions.edit_started.connect(self._edit_in_composer)
        sessions.editing_changed.connect(self.composer.set_editing)
        self.composer.edit_cancelled.connect(sessions.cancel_edit)
        self.composer.input.edit_last_requested.connect(sessions.edit_last)

    # --- state kept between runs ------------------------------------------------------

    def _splitters(self) -> dict[str, QSplitter]:
        return {"splitter": self.splitter, "right_splitter": self.right_splitter}

    def _restore_state(self) -> None:
        ui = self.runtime.settings.ui
        restore_arrangement(ui, self.problems_button, self._splitters())
        self.workspace.restore()
        self.server_status.show_saved_model()
        self.sessions.reopen(ui.get("conversation"))

    def save_state(self) -> None:
        ui = self.runtime.settings.ui
        save_arrangement(ui, self, self.problems_button, self._splitters())
        current = self.sessions.current
        ui["conversation"] = current.id if current else ""
        self.runtime.save_settings()

    # --- the conversation on screen -----------------------------------------------------

    def _follow_figures(self, session: Session) -> None:
        """The composer's context bar shows the conversation on screen."""

        def shown(stats: object) -> None:
            if session is self.sessions.current:
                self.composer.show_context(session.view.last_figures)

        session.view.figures_shown.connect(shown)

    def export_conversation(self, conversation_id: str | None = None) -> QFileDialog | None:
        """The save dialog for a conversation (the one on screen when None; Ctrl+Shift+E)."""
        if conversation_id is None:
            if self.sessions.current is None:
                return None
            conversation_id = self.sessions.current.id
        runtime = self.runtime
        return ask_and_export(
            self,
            runtime.store,
            conversation_id,
            self.sessions.title_of(conversation_id),
            lambda: known_secrets(runtime.services.settings.load(), runtime.services.secrets),
            runtime.workspace(),
        )

    def _installed_models(self) -> list[tuple[str, str]]:
        """(server, model) of every model the picker lists, every configured server's."""
        picker, current = self.model_picker, self.runtime.server.name
        listed = []
        for row in range(picker.count()):
            name = picker.itemData(row)
            if isinstance(name, str) and name:
                listed.append((str(picker.itemData(row, SERVER_ROLE) or current), name))
        return listed

    def _edit_in_composer(self, text: str) -> None:
        """The message being edited, in the composer: the next send replaces it."""
        self.composer.set_text(text)
        self.composer.input.setFocus()
        self.composer.input.moveCursor(QTextCursor.MoveOperation.End)

    def _show_title(self, title: str) -> None:
        """The conversation's title in the header and the window's title bar."""
        self.title.set_full_text(title)
        self.setWindowTitle(_("{title} — Loki").format(title=title) if title else "Loki")

    def _on_shown(self, session: Session | None) -> None:
        self.composer.show_context(session.view.last_figures if session is not None else None)
        if session is None:
            self.stack.setCurrentWidget(self.welcome)
            self._show_title(_("Nouvelle conversation"))
            self._on_busy(None, False)
            self.composer.input.setFocus()
            return
        self.stack.setCurrentWidget(session.view)
        self._show_title(self.sessions.title_of(session.id))
        self._on_busy(session, session.runner.busy)
        if not self.conversations.list.hasFocus():  # opened from the list: Up/Down go on there
            self.composer.input.setFocus()

    def _index_progress(self, done: int, total: int) -> None:
        """« Index du dossier : 120 / 10 000 fichiers », while a build reads files."""
        self.index_line.setVisible(0 < done < total)
        self.index_line.setText(
            _("Index du dossier : {done} / {total} fichiers").format(done=done, total=total)
        )

    def _on_busy(self, session: Session | None, busy: bool) -> None:
        if not busy:  # AGENTS.md may have been written or changed by the turn
            self.workspace.refresh_agents_md()
        if session is self.sessions.current:
            self.composer.set_busy(busy)
            self.stream_status.follow(session.view if session else None, busy)

    def edit_instructions(self, conversation_id: str) -> ConversationInstructionsDialog:
        """The conversation's own instructions (its menu); the next turn takes them."""
        dialog = ConversationInstructionsDialog(
            self.runtime.settings,
            conversation_id,
            self.sessions.title_of(conversation_id),
            self.runtime.save_settings,
            self,
        )
        dialog.open()
        return dialog

    def _on_renamed(self, conversation_id: str, title: str) -> None:
        current = self.sessions.current
        if current is not None and current.id == conversation_id:
            self._show_title(title)

    # --- the Problems panel -------------------------------------------------------------

    def _show_problems(self, visible: bool) -> None:
        self.problems.setVisible(visible)
        if visible and self.right_splitter.sizes()[1] < 80:
            total = sum(self.right_splitter.sizes())
            self.right_splitter.setSizes([max(total - 220, 200), 220])

    # --- images dropped on the window -------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if Attachments.offers_images(event.mimeData()):
            event.acceptProposedAction()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if Attachments.offers_images(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        if Attachments.offers_images(event.mimeData()):
            event.acceptProposedAction()
            self.composer.attachments.attach_mime(event.mimeData())
            self.composer.input.setFocus()

    # --- starting and closing -----------------------------------------------------------

    async def start(self) -> None:
        """Ask the server for its models and start watching the workspace (neither waits for
        the other: a server that does not answer must not hold the watcher back)."""
        await self.runtime.load()  # the agent's modules, off the GUI thread
        self.downloads.offer_interrupted()
        await asyncio.wait([self.workspace.watch(), self.server_status.check()])

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_state()
        if self.keep_in_tray:
            event.ignore()
            self.hide()
            return
        event.accept()
        self.quit_requested.emit()

    async def shutdown(self) -> None:
        """Stop every turn (their partial answers are stored) and every background task."""
        self.server_status.recheck.stop()
        await self.sessions.stop_all()
        await self.tasks.cancel_all()
        await self.downloads.panel.aclose()
        await self.problems_feed.stop()
