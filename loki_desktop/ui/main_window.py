"""The main window: conversations on the left, the chat and its composer, the Problems panel."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QObject, Qt, QTimer, Signal
from PySide6.QtGui import (
    QCloseEvent,
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QKeySequence,
    QShortcut,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QMainWindow,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from loki_desktop.core.i18n import _
from loki_desktop.core.messages import ImageAttachment
from loki_desktop.core.ports import BackendError, BackendUnreachable, ModelProfile
from loki_desktop.ui.approval import ShellApprover
from loki_desktop.ui.attachments import Attachments
from loki_desktop.ui.backend_status import ModelPicker
from loki_desktop.ui.chat_view import PAGE_SIZE, ChatView
from loki_desktop.ui.compact_bar import CompactBar
from loki_desktop.ui.composer import Composer
from loki_desktop.ui.conversations import ConversationList
from loki_desktop.ui.markdown_render import MarkdownRenderer
from loki_desktop.ui.mcp_composer import McpComposer
from loki_desktop.ui.mcp_host import connect_window
from loki_desktop.ui.memory_return import MemoryReturn, delete_now
from loki_desktop.ui.model_downloads import ModelDownloads
from loki_desktop.ui.model_marks import MarksRow
from loki_desktop.ui.notice_bar import NoticeBar
from loki_desktop.ui.preview_button import PreviewButton
from loki_desktop.ui.problems import ProblemsFeed, ProblemsPanel
from loki_desktop.ui.qt_helpers import ElidedLabel, OwnedTasks, button, label
from loki_desktop.ui.runtime import OllamaNoAnswer, Runtime
from loki_desktop.ui.shortcuts import install_shortcuts
from loki_desktop.ui.sidebar import Sidebar
from loki_desktop.ui.stream_status import StreamStatus
from loki_desktop.ui.theme import Theme, app_icon
from loki_desktop.ui.turn_errors import Banner, watch_turn
from loki_desktop.ui.turns import TurnRunner
from loki_desktop.ui.undo_bar import UndoBars
from loki_desktop.ui.welcome import WelcomePage
from loki_desktop.ui.window_fit import place_window
from loki_desktop.ui.workspace_picker import WorkspacePicker, remember_recent

if TYPE_CHECKING:
    from loki_desktop.ui.settings_dialog import SettingsDialog

RECHECK_MS = 10_000  # while Ollama is unreachable, look again this often


class Session(QObject):
    """One open conversation: its view, its turn runner and its shell approvals."""

    def __init__(self, window: MainWindow, conversation_id: str) -> None:
        super().__init__(window)
        self.id = conversation_id
        self.view = ChatView(window.renderer)
        self.approver = ShellApprover(window, lambda: window.renderer)
        self.approver.on_ask = self.view.tool_waiting  # the card says EN ATTENTE meanwhile
        self.approver.on_answer = self.view.tool_answered
        self.after_failure: asyncio.Task[None] | None = None  # is the server gone? (turn_errors)
        self.runner = TurnRunner(
            self.view,
            lambda: window.runtime.make_agent(self.approver),
            window.runtime.running_turns,
            self,
        )
        runtime = window.runtime
        self.undo = UndoBars(
            self.view, lambda: runtime.checkpoints, lambda: runtime.store, conversation_id
        )
        self.view.older_loaded.connect(self.undo.refresh)

    def dispose(self) -> None:
        self.view.deleteLater()
        self.deleteLater()


class MainWindow(QMainWindow):
    quit_requested = Signal()

    def __init__(self, runtime: Runtime, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runtime = runtime
        self.theme = theme
        self.tasks = OwnedTasks()
        self.memory_return = MemoryReturn(self)  # closed conversations' memory back to the system
        self.sessions: dict[str, Session] = {}
        self.current: Session | None = None
        self.keep_in_tray = False  # set by the app when a system tray shows Loki's icon
        self._refresh: asyncio.Task[None] | None = None  # the model list being asked for
        self._server_models: list[str] = []
        # the other servers' models (or why not), grouped in the picker; empty with one server
        self._others: list[tuple[str, list[str] | str]] = []
        self.renderer = MarkdownRenderer(theme.palette, _("Copier"))
        self.setWindowTitle("Loki")
        self.setWindowIcon(app_icon())
        self.setAcceptDrops(True)  # images dropped anywhere on the window join the message
        self._build()
        self.compact_bar = CompactBar(self)
        self.sidebar = Sidebar(self)
        # MCP servers' own requests (forms, sampling) and the composer's "/" and "@"
        self.mcp_host = connect_window(self)
        self.mcp_composer = McpComposer(self.composer, runtime)
        self._restore_state()
        place_window(self, self.runtime.settings.ui)
        install_shortcuts(self)
        theme.changed.connect(self._on_theme)
        self._recheck = QTimer(self)
        self._recheck.setSingleShot(True)
        self._recheck.setInterval(RECHECK_MS)
        self._recheck.timeout.connect(self.check_backend)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.stop_current)
        QShortcut(QKeySequence.StandardKey.New, self, self.new_conversation)

    # --- building -------------------------------------------------------------------

    def _build(self) -> None:
        self.conversations = ConversationList(lambda: self.runtime.store)
        self.conversations.selected.connect(self.open_conversation)
        self.conversations.new_requested.connect(self.new_conversation)
        self.conversations.delete_confirmed.connect(self.delete_conversation)
        self.conversations.renamed.connect(self._on_renamed)

        header = QFrame()
        header.setObjectName("Header")
        head = QHBoxLayout(header)
        head.setContentsMargins(18, 10, 14, 10)
        head.setSpacing(10)
        self.title = ElidedLabel(_("Nouvelle conversation"), "ConversationTitle")
        self.title.setMinimumWidth(120)
        head.addWidget(self.title, 1)
        self.model_caption = label(_("MODÈLE"), "HeaderCaption")
        head.addWidget(self.model_caption)
        self.model_picker = ModelPicker()
        self.model_picker.model_chosen.connect(self._on_model)
        head.addWidget(self.model_picker)
        self.model_marks = MarksRow()
        self.model_marks.hide()
        head.addWidget(self.model_marks, 0, Qt.AlignmentFlag.AlignVCenter)
        self.workspace_picker = WorkspacePicker()
        self.workspace_picker.changed.connect(self._on_workspace)
        head.addWidget(self.workspace_picker)
        self.preview = PreviewButton(self.runtime)
        head.addWidget(self.preview.widget)
        self.problems_button = button(_("Problèmes"))
        self.problems_button.setCheckable(True)
        self.problems_button.toggled.connect(self._show_problems)
        head.addWidget(self.problems_button)
        self.settings_button = button(_("Réglages"))
        self.settings_button.clicked.connect(self.open_settings)
        head.addWidget(self.settings_button)

        self.banner = Banner()
        self.banner.retry_requested.connect(self.check_backend)
        self.banner.settings_requested.connect(self.open_settings)
        self.notice_bar = NoticeBar()
        self.notice_bar.show_messages(self.runtime.startup_notices)

        self.welcome = WelcomePage()
        self.welcome.suggestion_chosen.connect(self._use_suggestion)
        self.downloads = ModelDownloads(self)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.welcome)

        self.composer = Composer()
        self.conversations.type_target = self.composer.input  # what the list gets typed
        self.composer.send_requested.connect(self.send)
        self.composer.stop_requested.connect(self.stop_current)

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

        self.problems = ProblemsPanel()
        self.problems.fix_requested.connect(self.send_new)
        self.problems.count_changed.connect(self._on_problem_count)
        self.problems_feed = ProblemsFeed(self.problems)

        self.right_splitter = QSplitter(Qt.Orientation.Vertical)
        self.right_splitter.setObjectName("RightSplitter")
        self.right_splitter.addWidget(chat_area)
        self.right_splitter.addWidget(self.problems)
        self.right_splitter.setStretchFactor(0, 1)
        self.right_splitter.setChildrenCollapsible(False)
        self.problems.hide()

        right = QWidget()
        right.setObjectName("Central")
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.setSpacing(0)
        right_layout.addWidget(header)
        banner_box = QVBoxLayout()
        banner_box.setContentsMargins(16, 12, 16, 0)
        banner_box.addWidget(self.banner)
        banner_box.addWidget(self.notice_bar)
        banner_box.addWidget(self.downloads.panel)
        right_layout.addLayout(banner_box)
        right_layout.addWidget(self.right_splitter, 1)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("MainSplitter")
        self.splitter.addWidget(self.conversations)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([280, 960])
        self.setCentralWidget(self.splitter)

    # --- state kept between runs ------------------------------------------------------

    def _restore_state(self) -> None:
        ui = self.runtime.settings.ui
        # the panel is shown before the splitter sizes come back, so they apply as saved
        self.problems_button.setChecked(bool(ui.get("problems_visible", False)))
        for key, splitter in (("splitter", self.splitter), ("right_splitter", self.right_splitter)):
            state = ui.get(key)
            if isinstance(state, str):
                splitter.restoreState(QByteArray.fromBase64(state.encode()))
        settings = self.runtime.settings
        if settings.workspace and self.runtime.workspace() is None:
            # gone since the last run: were it to come back, its file tools would be on
            # while the picker says "no folder"
            settings.workspace = ""
        self.workspace_picker.set_folder(settings.workspace, settings.recent_workspaces)
        self.preview.refresh()
        self.model_picker.set_models([], settings.model)
        self.composer.set_vision(self._vision_refusal(settings.model, None))
        self.conversations.refresh()
        last = ui.get("conversation")
        if isinstance(last, str) and self.runtime.store.exists(last):
            self.open_conversation(last)
        else:
            self.new_conversation()

    def save_state(self) -> None:
        ui = self.runtime.settings.ui
        ui["geometry"] = bytes(self.saveGeometry().toBase64().data()).decode()
        ui["splitter"] = bytes(self.splitter.saveState().toBase64().data()).decode()
        ui["right_splitter"] = bytes(self.right_splitter.saveState().toBase64().data()).decode()
        ui["problems_visible"] = self.problems_button.isChecked()
        ui["conversation"] = self.current.id if self.current else ""
        self.runtime.save_settings()

    # --- conversations ------------------------------------------------------------------

    def new_conversation(self) -> None:
        self._leave_current()
        self.current = None
        self.stack.setCurrentWidget(self.welcome)
        self.title.set_full_text(_("Nouvelle conversation"))
        self.conversations.select(None)
        self.composer.set_busy(False)
        self.stream_status.follow(None, False)
        self.composer.input.setFocus()

    def open_conversation(self, conversation_id: str) -> None:
        if self.current is not None and self.current.id == conversation_id:
            return
        left = self._leave_current()
        if left is not None:  # deleted before the next view is built, which reuses its memory
            self.current = None
            delete_now(left.view, left)
        session = self.sessions.get(conversation_id)
        if session is None:
            session = self._new_session(conversation_id)
            store = self.runtime.store
            session.view.open(lambda before: store.page(conversation_id, PAGE_SIZE, before))
            session.undo.refresh()
        self._show(session)

    def _new_session(self, conversation_id: str) -> Session:
        session = Session(self, conversation_id)
        session.view.retry_requested.connect(lambda: self.retry(session))
        session.runner.busy_changed.connect(lambda busy: self._on_busy(session, busy))
        session.runner.finished.connect(lambda _reason: self._on_finished(session))
        watch_turn(self, session)
        self.sessions[conversation_id] = session
        self.stack.addWidget(session.view)
        return session

    def _show(self, session: Session) -> None:
        self.current = session
        self.stack.setCurrentWidget(session.view)
        self.conversations.select(session.id)
        self.title.set_full_text(self._title_of(session.id))
        self.composer.set_busy(session.runner.busy)
        self.stream_status.follow(session.view, session.runner.busy)
        if not self.conversations.list.hasFocus():  # opened from the list: Up/Down go on there
            self.composer.input.setFocus()

    def _leave_current(self) -> Session | None:
        """Forget the view being left, unless its turn still runs (it finishes off screen);
        the session dropped, if one was."""
        session = self.current
        if session is not None and not session.runner.busy:
            self._drop(session)
            return session
        return None

    def _drop(self, session: Session) -> None:
        if self.sessions.get(session.id) is not session:
            return  # dropped already (its turn ended off screen)
        self.sessions.pop(session.id)
        self.stack.removeWidget(session.view)
        session.dispose()
        self.memory_return.request()

    def _title_of(self, conversation_id: str) -> str:
        title = self.conversations.title_of(conversation_id)
        if title is not None:
            return title
        for info in self.runtime.store.list_conversations():  # hidden by the search
            if info.id == conversation_id:
                return info.title
        return ""

    async def _delete(self, conversation_id: str) -> None:
        session = self.sessions.get(conversation_id)
        if session is not None:
            session.runner.stop()
            await session.runner.wait()
            if self.current is session:
                self.current = None
                self.new_conversation()
            self._drop(session)
        self.runtime.store.delete(conversation_id)
        if self.runtime.checkpoints is not None:  # the files' previous states go with it
            self.runtime.checkpoints.delete_conversation(conversation_id)
        self.conversations.refresh()

    def _on_renamed(self, conversation_id: str, title: str) -> None:
        if self.current is not None and self.current.id == conversation_id:
            self.title.set_full_text(title)

    def delete_conversation(self, conversation_id: str) -> None:
        self.tasks.spawn(self._delete(conversation_id))

    # --- turns ------------------------------------------------------------------------

    def send(self, text: str, images: tuple[ImageAttachment, ...] = ()) -> None:
        """Send `text` (and `images`) in the current conversation (a new one from the welcome
        page)."""
        session = self.current
        if session is None:
            title = text or ", ".join(image.name for image in images) or _("Image")
            conversation_id = self.runtime.new_conversation(title)
            self.conversations.refresh(select=conversation_id)
            session = self._new_session(conversation_id)
            self._show(session)
        if session.runner.busy:
            return
        if not session.runner.can_start(session.id):
            self.composer.set_text(text)  # kept, to send once that answer has ended
            self.composer.attachments.restore(images)
            session.view.add_notice(
                _(
                    "La question rapide répond encore dans cette conversation : "
                    "envoyez votre message quand elle aura fini."
                )
            )
            return
        session.view.add_user_message(text, images)
        session.runner.send(text, session.id, images)

    def send_new(self, text: str) -> None:
        """Send in the current conversation, or a new one if a turn is running there."""
        if self.current is not None and not self.current.runner.can_start(self.current.id):
            self.new_conversation()
        self.send(text)

    def retry(self, session: Session) -> None:
        if session.runner.can_start(session.id):
            session.runner.retry(session.id)

    def stop_current(self) -> None:
        """Stop (Esc) the turn of the conversation on screen; others go on."""
        if self.current is not None:
            self.current.runner.stop()

    def _on_busy(self, session: Session, busy: bool) -> None:
        if session is self.current:
            self.composer.set_busy(busy)
            self.stream_status.follow(session.view, busy)

    def _on_finished(self, session: Session) -> None:
        self.memory_return.request()  # a streamed answer leaves many freed small objects
        session.undo.refresh()  # the turn that ended may have changed files
        current = self.current.id if self.current else None
        self.conversations.refresh(select=current)
        if session is not self.current and not session.runner.busy:
            self._drop(session)

    def reload_conversation(self, conversation_id: str) -> None:
        """Another runner (the quick prompt) added to this conversation: show it as stored."""
        self.conversations.refresh()
        session = self.sessions.get(conversation_id)
        if session is None or session.runner.busy:
            return
        if session is self.current:
            self.current = None
            self._drop(session)
            self.open_conversation(conversation_id)
        else:
            self._drop(session)

    def _use_suggestion(self, text: str) -> None:
        self.composer.set_text(text)
        self.composer.input.setFocus()

    # --- starting ---------------------------------------------------------------------

    async def start(self) -> None:
        """Ask Ollama for its models and start watching the workspace (neither waits for the
        other: a server that does not answer must not hold the watcher back)."""
        await self.runtime.load()  # the agent's modules, off the GUI thread
        self.downloads.offer_interrupted()
        await asyncio.wait([self.watch_workspace(), self.check_backend()])

    # --- model server -------------------------------------------------------------------

    def check_backend(self) -> asyncio.Task[None]:
        """Ask the server for its models. One check at a time: a check still running is
        cancelled, so its late answer (about an older host) cannot overwrite this one's."""
        if self._refresh is not None and not self._refresh.done():
            self._refresh.cancel()
        self._refresh = self.tasks.spawn(self._refresh_backend())
        return self._refresh

    async def _refresh_backend(self) -> None:
        """Fill the picker from the server, or say what is wrong."""
        self._recheck.stop()
        self.banner.set_checking(True)
        host = self.runtime.host
        model = self.runtime.settings.model
        # the other servers are asked meanwhile: the picker groups every server's models
        others_task = asyncio.ensure_future(self.runtime.other_servers_models())
        try:
            models = await self.runtime.list_models()
            self._others = await others_task
        except BackendUnreachable as exc:
            self._others = await others_task
            if self.runtime.server.kind == "ollama":
                self.banner.show_unreachable(host)
            else:
                self.banner.show_server_problem(host, str(exc))
            self._fill_picker([], model)
            self._recheck.start()
            return
        except OllamaNoAnswer as exc:
            self.banner.show_no_answer(host, str(exc))
            self._recheck.start()
            return
        except BackendError as exc:
            if self.runtime.server.kind == "ollama":
                self.banner.show_error(host, str(exc))
            else:
                self.banner.show_server_problem(host, str(exc))
            self._recheck.start()
            return
        finally:
            if not others_task.done():  # cancelled, or the current server failed first
                others_task.cancel()
            if self._refresh is asyncio.current_task():  # not a check replaced by a newer one
                self.banner.set_checking(False)
        profiles = await self.runtime.model_profiles([info.name for info in models])
        # embedding-only models cannot chat: they are not offered
        self._server_models = [name for name, p in profiles.items() if p.for_chat]
        if not self._server_models:
            self._fill_picker([], model)
            self._recheck.start()  # a model pulled from a terminal shows up by itself
            if self.runtime.server.kind != "ollama":  # nothing to download through its API
                self.banner.show_server_problem(
                    host, _("Le serveur répond, mais ne sert aucun modèle de conversation.")
                )
                return
            self.banner.show_no_model(host)
            await self.downloads.offer_first_model()
            return
        self.downloads.models_present()
        self._fill_picker(self._server_models, model, profiles)
        self._show_model_state()

    def _fill_picker(
        self, names: list[str], model: str, profiles: dict[str, ModelProfile] | None = None
    ) -> None:
        """The picker: the current server's models, grouped with the others' when there
        are several servers."""
        server = self.runtime.server.name if self._others else ""
        self.model_picker.set_models(names, model, profiles, server=server, others=self._others)

    def _on_model(self, name: str) -> None:
        settings = self.runtime.settings  # the runtime's settings: every agent reads them
        settings.model = name
        server = self.model_picker.current_server()
        if server and server != self.runtime.server.name:
            # another server's model: its server becomes the current one (remembered)
            settings.model_server = server
            self.runtime.apply_servers()
            self.runtime.save_settings()
            self.check_backend()
            return
        if server:
            settings.model_server = server
        self.runtime.save_settings()
        self._show_model_state()

    def _show_model_state(self) -> None:
        """The banner says so when the chosen model is not on the server (none is swapped in);
        the header shows the model's marks; the attach button follows its vision."""
        model = self.runtime.settings.model or self.model_picker.current_model()
        if model and model not in self._server_models:
            self.banner.show_missing_model(self.runtime.host, model)
        else:
            self.banner.clear(self.runtime.host)
        profile = self.runtime.profile_of(model) if model in self._server_models else None
        self.model_marks.set_profile(profile)
        self.composer.set_vision(self._vision_refusal(model, profile))

    def _vision_refusal(self, model: str, profile: ModelProfile | None) -> str:
        """Why images cannot be attached for `model` ("" when they can)."""
        if profile is not None and profile.vision:
            return ""
        if not model:
            return _("Choisissez d'abord un modèle qui lit les images (marque VISION).")
        if profile is None:
            return _(
                "Loki ne sait pas encore si « {model} » lit les images : le serveur n'a pas "
                "répondu."
            ).format(model=model)
        return _(
            "« {model} » ne lit pas les images. Choisissez un modèle marqué VISION "
            "(gemma3, qwen2.5vl, llama3.2-vision…) pour en joindre."
        ).format(model=model)

    # --- workspace and problems ----------------------------------------------------------

    def _on_workspace(self, folder: str) -> None:
        settings = self.runtime.settings
        settings.workspace = folder
        settings.recent_workspaces = remember_recent(settings.recent_workspaces, folder)
        self.runtime.save_settings()
        self.runtime.update_roots()
        self.preview.refresh()
        self.watch_workspace()

    def watch_workspace(self) -> asyncio.Task[None]:
        """(Re)start the watcher on the current workspace; its problems fill the panel."""
        return self.tasks.spawn(
            self.problems_feed.watch(
                self.runtime.workspace(), enabled=self.runtime.settings.auto_checks
            )
        )

    def _show_problems(self, visible: bool) -> None:
        self.problems.setVisible(visible)
        if visible and self.right_splitter.sizes()[1] < 80:
            total = sum(self.right_splitter.sizes())
            self.right_splitter.setSizes([max(total - 220, 200), 220])

    def _on_problem_count(self, count: int) -> None:
        self.problems_button.setText(
            _("Problèmes ({n})").format(n=count) if count else _("Problèmes")
        )

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

    # --- settings, theme, closing -------------------------------------------------------

    def open_settings(self) -> SettingsDialog:
        from loki_desktop.ui.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.runtime, self.theme, self)  # it deletes itself once closed
        dialog.applied.connect(self._on_settings_applied)
        # the MCP page turns servers on and off as it is used, Save or not
        dialog.finished.connect(lambda _result: self.preview.refresh())
        dialog.open()
        return dialog

    def _on_settings_applied(self) -> None:
        self.check_backend()
        if self.runtime.settings.auto_checks != self.problems_feed.panel.watching:
            self.watch_workspace()

    def _on_theme(self) -> None:
        """New colours: what is on screen is rendered again (unless a turn is streaming)."""
        self.renderer = MarkdownRenderer(self.theme.palette, _("Copier"))
        for session in self.sessions.values():
            session.view.renderer = self.renderer
        if self.current is not None:
            self.reload_conversation(self.current.id)

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
        self._recheck.stop()
        for session in list(self.sessions.values()):
            session.runner.stop()
        for session in list(self.sessions.values()):
            await session.runner.wait()
        await self.tasks.cancel_all()
        await self.downloads.panel.aclose()
        await self.problems_feed.stop()
