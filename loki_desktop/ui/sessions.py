"""The open conversations: the one on screen, those finishing a turn off screen, and their turns."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QStackedWidget, QWidget

from loki_desktop.core.attachments.model import FileAttachment
from loki_desktop.core.branches import (
    BranchBusy,
    LeftBehind,
    NotPersons,
    branch_off,
    branch_point,
    is_persons,
    left_behind_notice,
    sibling,
    switch_branch,
)
from loki_desktop.core.i18n import N_, _
from loki_desktop.core.image_attachment import ImageAttachment
from loki_desktop.core.message_meta import FileChip as ChipInfo
from loki_desktop.core.ports import NotInConversation
from loki_desktop.ui.changes.approval import ShellApprover
from loki_desktop.ui.changes.undo_bar import UndoBars
from loki_desktop.ui.chat.conversations import ConversationList
from loki_desktop.ui.chat.oversize import fitted_files
from loki_desktop.ui.chat.view import PAGE_SIZE, ChatView
from loki_desktop.ui.heap_return import HeapReturn, delete_now
from loki_desktop.ui.qt_helpers import OwnedTasks
from loki_desktop.ui.runtime import Runtime
from loki_desktop.ui.text.markdown_render import MarkdownRenderer
from loki_desktop.ui.turns import TurnRunner

if TYPE_CHECKING:
    from loki_desktop.core.agent import Agent

BUSY = N_("Une réponse est en cours dans cette conversation : attendez qu'elle se termine.")


class Session(QObject):
    """One open conversation: its view, its turn runner and its shell approvals."""

    def __init__(
        self,
        conversation_id: str,
        runtime: Runtime,
        renderer: Callable[[], MarkdownRenderer],
        dialogs_parent: QWidget,
        parent: QObject,
    ) -> None:
        super().__init__(parent)
        self.id = conversation_id
        self.view = ChatView(renderer())
        self.view.forget_memory = runtime.forget_memory
        self.approver = ShellApprover(dialogs_parent, renderer)
        self.approver.on_ask = self.view.tool_waiting  # the card says EN ATTENTE meanwhile
        self.approver.on_answer = self.view.tool_answered
        self.approver.on_write_ask = self.view.write_waiting
        self.approver.on_write_answer = self.view.write_answered
        self.after_failure: asyncio.Task[None] | None = None  # is the server gone? (turn_errors)
        self.model_override = ("", "")  # Régénérer avec…: (server, model) of the next turn
        self.on_a_new_branch = False  # its turn started a branch: shown again from the store
        self.left_behind: LeftBehind | None = None  # what that branch left (said again then)
        self.runner = TurnRunner(
            self.view,
            lambda: self._agent(runtime),
            runtime.running_turns,
            self,
            prepare=runtime.load_agent,
        )
        self.undo = UndoBars(
            self.view,
            lambda: runtime.checkpoints,
            lambda: runtime.store,
            conversation_id,
            parent=self.view,
        )
        self.view.older_loaded.connect(self.undo.refresh)

    def _agent(self, runtime: Runtime) -> Agent:
        (server, model), self.model_override = self.model_override, ("", "")
        return runtime.make_agent(self.approver, self.id, server=server, model=model)

    def dispose(self) -> None:
        self.view.deleteLater()
        self.deleteLater()


class Sessions(QObject):
    """Opens, switches, deletes and sends in conversations. Only the one on screen and those
    whose turn still runs are kept; the others are dropped (their memory given back)."""

    shown = Signal(object)  # the Session now on screen, or None: the welcome page
    busy_changed = Signal(object, bool)  # a session's turn started or ended
    opened = Signal(object)  # a Session just built (its turns can be hooked)
    # (text, images) not sent: another runner answers in that conversation; kept for later
    send_refused = Signal(str, tuple)
    edit_started = Signal(str)  # the text of the message being edited (for the composer)
    editing_changed = Signal(bool)  # an edit started, or ended (sent, cancelled, left)

    def __init__(
        self,
        runtime: Runtime,
        conversations: ConversationList,
        stack: QStackedWidget,
        renderer: Callable[[], MarkdownRenderer],
        tasks: OwnedTasks,
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self.runtime = runtime
        self.conversations = conversations
        self.stack = stack  # where the open conversations' views live
        self.renderer = renderer
        self.tasks = tasks
        self.dialogs_parent = parent  # approvals are asked over it
        self.heap_return = HeapReturn(self)  # closed conversations' memory back to the system
        self.by_id: dict[str, Session] = {}
        self.current: Session | None = None
        # installed models, (server, model), for Régénérer avec…
        self.models: Callable[[], list[tuple[str, str]]] = list
        self._editing: tuple[str, int] | None = None  # (conversation, message) being edited

    # --- on screen ------------------------------------------------------------------------

    def back_online(self) -> None:
        """The server answers again: every open conversation's offline cards say so."""
        for session in self.by_id.values():
            session.view.back_online()

    def new_conversation(self) -> None:
        """The welcome page: the next message starts a conversation."""
        left = self._leave_current()
        self.current = None
        self.editing = None
        if left is not None:  # its memory free now, for the trim that follows (heap_return)
            delete_now(left.view, left)
        self.conversations.select(None)
        self.shown.emit(None)

    def reopen(self, last: object) -> None:
        """At start: the conversation open when the window last closed, if it still exists."""
        self.conversations.refresh()
        if isinstance(last, str) and self.runtime.store.exists(last):
            self.open_conversation(last)
        else:
            self.new_conversation()

    def open_conversation(self, conversation_id: str) -> None:
        if self.current is not None and self.current.id == conversation_id:
            return
        left = self._leave_current()
        if left is not None:  # deleted before the next view is built, which reuses its memory
            self.current = None
            delete_now(left.view, left)
        session = self.by_id.get(conversation_id)
        if session is None:
            session = self._new_session(conversation_id)
            store = self.runtime.store
            session.view.open(lambda before: store.page(conversation_id, PAGE_SIZE, before))
            session.undo.refresh()
        self._show(session)

    def reload_conversation(self, conversation_id: str) -> None:
        """Another runner (the quick prompt) added to this conversation: show it as stored."""
        self.conversations.refresh()
        session = self.by_id.get(conversation_id)
        if session is None or session.runner.busy:
            return
        if session is self.current:
            self.current = None
            self._drop(session)
            self.open_conversation(conversation_id)
        else:
            self._drop(session)

    def set_renderer(self, renderer: MarkdownRenderer) -> None:
        """New colours: what is on screen is rendered again (unless a turn is streaming)."""
        for session in self.by_id.values():
            session.view.renderer = renderer
        if self.current is not None:
            self.reload_conversation(self.current.id)

    def title_of(self, conversation_id: str) -> str:
        title = self.conversations.title_of(conversation_id)
        if title is not None:
            return title
        for info in self.runtime.store.list_conversations():  # hidden by the search
            if info.id == conversation_id:
                return info.title
        return ""

    def _new_session(self, conversation_id: str) -> Session:
        session = Session(conversation_id, self.runtime, self.renderer, self.dialogs_parent, self)
        session.view.retry_requested.connect(lambda: self.retry(session))
        self._wire_branches(session)
        session.runner.busy_changed.connect(lambda busy: self.busy_changed.emit(session, busy))
        session.runner.finished.connect(lambda _reason: self._on_finished(session))
        self.opened.emit(session)
        self.by_id[conversation_id] = session
        self.stack.addWidget(session.view)
        return session

    @property
    def editing(self) -> tuple[str, int] | None:
        return self._editing

    @editing.setter
    def editing(self, value: tuple[str, int] | None) -> None:
        changed = (value is None) != (self._editing is None)
        self._editing = value
        if changed:
            self.editing_changed.emit(value is not None)

    def cancel_edit(self) -> None:
        self.editing = None

    def _wire_branches(self, session: Session) -> None:
        conversation_id, view = session.id, session.view
        view.versions_of = lambda ids: self.runtime.store.branches(conversation_id, ids)
        view.models = self.models
        view.step_requested.connect(lambda mid, step: self.step(session, mid, step))
        view.edit_requested.connect(lambda mid: self.start_edit(session, mid))
        view.regenerate_requested.connect(
            lambda mid, server, model: self.regenerate(session, mid, model, server)
        )

    def _show(self, session: Session) -> None:
        if self.editing is not None and self.editing[0] != session.id:
            self.editing = None  # an edit is of the conversation it started in
        self.current = session
        self.conversations.select(session.id)
        self.shown.emit(session)

    def _leave_current(self) -> Session | None:
        """Forget the view being left, unless its turn still runs (it finishes off screen);
        the session dropped, if one was."""
        session = self.current
        if session is not None and not session.runner.busy:
            self._drop(session)
            return session
        return None

    def _drop(self, session: Session) -> None:
        if self.by_id.get(session.id) is not session:
            return  # dropped already (its turn ended off screen)
        self.by_id.pop(session.id)
        self.stack.removeWidget(session.view)
        session.dispose()
        self.heap_return.request()

    # --- deleting ---------------------------------------------------------------------------

    def delete_conversation(self, conversation_id: str) -> None:
        """Stop its turn, then delete it with its files' previous states."""
        self.tasks.spawn(self._delete(conversation_id))

    async def _delete(self, conversation_id: str) -> None:
        session = self.by_id.get(conversation_id)
        if session is not None:
            session.runner.stop()
            await session.runner.wait()
            if self.current is session:
                self.current = None
                self.new_conversation()
            self._drop(session)
        self.runtime.store.delete(conversation_id)
        if self.runtime.settings.conversation_instructions.pop(conversation_id, None) is not None:
            self.runtime.save_settings()
        if self.runtime.checkpoints is not None:  # the files' previous states go with it
            self.runtime.checkpoints.delete_conversation(conversation_id)
        self.conversations.refresh()

    # --- turns ------------------------------------------------------------------------------

    def send(self, text: str, attached: tuple[ImageAttachment | FileAttachment, ...] = ()) -> None:
        """Send `text` (and the images and files `attached`) in the current conversation (a new
        one from the welcome page)."""
        images = tuple(item for item in attached if isinstance(item, ImageAttachment))
        files = tuple(item for item in attached if isinstance(item, FileAttachment))
        session = self.current
        if session is None:
            names = ", ".join([image.name for image in images] + [file.name for file in files])
            title = text or names or _("Image")
            conversation_id = self.runtime.new_conversation(title)
            self.conversations.refresh(select=conversation_id)
            session = self._new_session(conversation_id)
            self._show(session)
        if files:  # first: do they fit in the context left?
            self.tasks.spawn(self._send_files(session, text, images, files))
            return
        self._deliver(session, text, images, files)

    async def _send_files(
        self,
        session: Session,
        text: str,
        images: tuple[ImageAttachment, ...],
        files: tuple[FileAttachment, ...],
    ) -> None:
        fitted = await fitted_files(session.runner.make_agent, text, files, self.dialogs_parent)
        if fitted is None:  # not sent: back in the composer, as it was
            self.send_refused.emit(text, (*images, *files))
            return
        self._deliver(session, text, images, fitted)

    def _deliver(
        self,
        session: Session,
        text: str,
        images: tuple[ImageAttachment, ...],
        files: tuple[FileAttachment, ...],
    ) -> None:
        if session.runner.busy:
            return
        if not session.runner.can_start(session.id):
            self.send_refused.emit(text, (*images, *files))
            session.view.add_notice(
                _(
                    "La question rapide répond encore dans cette conversation : "
                    "envoyez votre message quand elle aura fini."
                )
            )
            return
        if self.editing is not None and self.editing[0] == session.id:
            branched = self._branch_for_edit(session, self.editing[1])
            if branched is None:
                return
            session = branched
        chips = tuple(ChipInfo(f.name, f.size, f.kind, f.cut) for f in files)
        session.view.add_user_message(text, images, chips)
        session.runner.send(text, session.id, images, files)

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

    async def stop_all(self) -> None:
        """Stop every turn and wait for them (their partial answers are stored)."""
        for session in list(self.by_id.values()):
            session.runner.stop()
        for session in list(self.by_id.values()):
            await session.runner.wait()

    def _on_finished(self, session: Session) -> None:
        self.heap_return.request()  # a streamed answer leaves many freed small objects
        if session.on_a_new_branch and session is self.current:
            # rebuilt from the store, so the arrows of the new version sit where they belong
            session.on_a_new_branch = False
            QTimer.singleShot(0, self, lambda: self._show_branch(session.id))
        else:
            self._bar_after_turn(session)
        session.undo.refresh()  # the turn that ended may have changed files
        current = self.current.id if self.current else None
        self.conversations.refresh(select=current)
        if session is not self.current and not session.runner.busy:
            self._drop(session)

    # --- branches: edit and resend, regenerate, the arrows ---------------------------------

    def start_edit(self, session: Session, message_id: int) -> None:
        """Put the person's message in the composer; the next send replaces it (a branch)."""
        message = next(
            (m for m in self.runtime.store.messages(session.id) if m.id == message_id), None
        )
        if message is None or session is not self.current:
            return
        self.editing = (session.id, message_id)
        self.edit_started.emit(message.content)

    def edit_last(self) -> bool:
        """Ctrl+↑ in an empty composer: edit the person's last message (False: none)."""
        session = self.current
        if session is None:
            return False
        persons = [m for m in self.runtime.store.messages(session.id) if is_persons(m)]
        if not persons or persons[-1].id is None:
            return False
        self.start_edit(session, persons[-1].id)
        return True

    def regenerate(
        self, session: Session, question_id: int, model: str = "", server: str = ""
    ) -> None:
        """Answer the person's message again (with `model` of the configured server
        `server`, or the model in use): a sibling of the earlier answers."""
        self.editing = None  # an edit under way is dropped: the composer's text stays
        fresh = self._branch(session, question_id, "regenerate")
        if fresh is not None:
            fresh.model_override = (server, model)
            fresh.runner.retry(fresh.id)

    def step(self, session: Session, message_id: int, step: int) -> None:
        """The arrows: show the previous or next version of a message."""
        store = self.runtime.store
        if session.runner.busy:  # its turn may not hold the conversation yet: refuse anyway
            session.view.add_notice(_(BUSY))
            return
        try:
            switch_branch(store, session.id, sibling(store, session.id, message_id, step))
        except (BranchBusy, NotInConversation) as exc:
            session.view.add_notice(str(exc))
            return
        self.reload_conversation(session.id)

    def _show_branch(self, conversation_id: str) -> None:
        session = self.current
        if session is None or session.id != conversation_id:
            return
        left = session.left_behind
        self.reload_conversation(conversation_id)
        if left is not None and self.current is not None:
            self._offer_undo(self.current, left)

    @staticmethod
    def _offer_undo(session: Session, left: LeftBehind) -> None:
        """Say which files the branch left behind changed, with each turn's undo."""
        notice = left_behind_notice(left)
        if notice is not None:
            session.view.add_notice(notice)
            session.undo.offer(left.turns)

    def _branch_for_edit(self, session: Session, message_id: int) -> Session | None:
        self.editing = None
        return self._branch(session, message_id, "edit")

    def _branch(self, session: Session, message_id: int, kind: str) -> Session | None:
        """Rewind where the new branch starts and show the conversation so far; the session
        now on screen (None: refused, said in the view)."""
        if session is not self.current:
            return None
        if session.runner.busy or not session.runner.can_start(session.id):
            session.view.add_notice(_(BUSY))
            return None
        try:
            left = branch_off(
                self.runtime.store, self.runtime.checkpoints, session.id, message_id, kind
            )
        except (BranchBusy, NotPersons, NotInConversation) as exc:
            session.view.add_notice(str(exc))
            return None
        self.reload_conversation(session.id)
        fresh = self.by_id.get(session.id, session)
        fresh.on_a_new_branch = True
        fresh.left_behind = left if left.turns else None
        self._offer_undo(fresh, left)
        return fresh

    def _bar_after_turn(self, session: Session) -> None:
        """Modifier under the message a live turn answered, Régénérer under its answer (stored
        turns get them when built)."""
        if session.view.versions_of is None or session.runner.busy:
            return
        last = self.runtime.store.page(session.id, PAGE_SIZE)
        index = branch_point(last, None)
        if index is None or index + 1 >= len(last):
            return
        question, answer = last[index], last[index + 1]
        if answer.role == "assistant" and question.id is not None and answer.id is not None:
            versions = self.runtime.store.branches(session.id, [question.id, answer.id])
            session.view.add_question_bar(question.id, versions.get(question.id))
            session.view.add_answer_bar(answer.id, question.id, versions.get(answer.id))
