"""The open conversations without a window: opening, switching, sending, refusing, deleting."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import shiboken6
from PySide6.QtWidgets import QStackedWidget, QWidget

from loki_desktop.core.services import Services
from loki_desktop.ui.chat.conversations import ConversationList
from loki_desktop.ui.chat.items import AssistantMessage, NoticeLine, UserMessage
from loki_desktop.ui.qt_helpers import OwnedTasks
from loki_desktop.ui.sessions import Session, Sessions
from loki_desktop.ui.text.rendering import ThemedRenderer
from loki_desktop.ui.theme import Theme
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.helpers import open_runtime, wait_until


class Opened:
    """Sessions over a real runtime, list and stack; what it announced, in order."""

    def __init__(self, sessions: Sessions, stack: QStackedWidget, theme: Theme) -> None:
        self.sessions = sessions
        self.stack = stack
        self.theme = theme
        self.shown: list[Session | None] = []
        self.refused: list[tuple[str, tuple[Any, ...]]] = []
        sessions.shown.connect(self.shown.append)
        sessions.send_refused.connect(lambda text, images: self.refused.append((text, images)))

    async def idle(self) -> None:
        current = self.sessions.current
        await wait_until(lambda: current is not None and not current.runner.busy)


@contextlib.asynccontextmanager
async def open_sessions(services: Services, qtbot: Any, host: str) -> AsyncIterator[Opened]:
    async with open_runtime(services, host) as runtime:
        runtime.settings.model = "qwen2.5-coder:7b"
        parent = QWidget()
        qtbot.addWidget(parent)
        conversations = ConversationList(lambda: runtime.store)
        stack = QStackedWidget()
        tasks = OwnedTasks()
        theme = Theme("light")
        rendering = ThemedRenderer(theme, parent)
        sessions = Sessions(
            runtime, conversations, stack, lambda: rendering.renderer, tasks, parent
        )
        rendering.changed.connect(sessions.set_renderer)
        opened = Opened(sessions, stack, theme)
        try:
            yield opened
        finally:
            await sessions.stop_all()
            await tasks.cancel_all()
            for widget in (conversations, stack):
                widget.deleteLater()


def kinds(session: Session | None) -> list[str]:
    assert session is not None
    return [type(item).__name__ for item in session.view.items()]


async def test_sending_from_nothing_starts_a_conversation_and_switching_drops_the_idle_one(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    async with open_sessions(services, qtbot, ollama.url) as opened:
        sessions = opened.sessions
        ollama.script(Reply.text("Bonjour !"), Reply.text("Deux."))
        sessions.send("Salut")
        first = sessions.current
        assert first is not None
        assert opened.shown == [first]
        assert sessions.conversations.current_id() == first.id
        await opened.idle()
        assert kinds(first) == ["UserMessage", "AssistantMessage"]

        sessions.new_conversation()
        assert opened.shown[-1] is None
        assert sessions.current is None
        assert first.id not in sessions.by_id  # idle: dropped, its view deleted at once
        assert not shiboken6.isValid(first.view)
        assert opened.stack.count() == 0
        assert sessions.heap_return.pending or not sessions.heap_return.available

        sessions.open_conversation(first.id)  # built again from the history
        reopened = sessions.current
        assert reopened is not None
        assert reopened is not first
        assert opened.shown[-1] is reopened
        await wait_until(lambda: kinds(reopened) == ["UserMessage", "AssistantMessage"])
        assert sessions.title_of(reopened.id) == "Salut"


async def test_a_conversation_left_while_its_turn_runs_ends_off_screen_then_goes(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    async with open_sessions(services, qtbot, ollama.url) as opened:
        sessions = opened.sessions
        ollama.script(Reply.text(*[f"m{i} " for i in range(40)], token_delay=0.02))
        sessions.send("Raconte")
        running = sessions.current
        assert running is not None
        assert running.runner.busy
        sessions.new_conversation()
        assert running.id in sessions.by_id  # kept while its turn streams
        await wait_until(lambda: running.id not in sessions.by_id)
        stored = sessions.runtime.store.messages(running.id)
        assert [m.role for m in stored] == ["user", "assistant"]
        assert "m39" in stored[-1].content


async def test_a_conversation_answered_elsewhere_refuses_and_hands_the_text_back(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    async with open_sessions(services, qtbot, ollama.url) as opened:
        sessions = opened.sessions
        conversation = sessions.runtime.new_conversation("Ailleurs")
        sessions.conversations.refresh()
        sessions.open_conversation(conversation)
        sessions.runtime.running_turns.add(conversation)  # the quick prompt answers there
        sessions.send("Et ici ?")
        assert opened.refused == [("Et ici ?", ())]
        assert kinds(sessions.current) == ["NoticeLine"]
        notice = sessions.current.view.items()[-1]  # type: ignore[union-attr]
        assert isinstance(notice, NoticeLine)
        assert "question rapide" in notice.message
        assert ollama.chat_requests == []

        # the Problems panel's fix goes to a new conversation instead
        ollama.script(Reply.text("Corrigé."))
        sessions.send_new("Corrige ce fichier")
        assert sessions.current is not None
        assert sessions.current.id != conversation
        await opened.idle()
        items = sessions.current.view.items()
        assert isinstance(items[0], UserMessage)
        assert isinstance(items[-1], AssistantMessage)


async def test_deleting_the_open_conversation_stops_its_turn_and_shows_nothing(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    async with open_sessions(services, qtbot, ollama.url) as opened:
        sessions = opened.sessions
        ollama.script(Reply.text(*[f"m{i} " for i in range(200)], token_delay=0.02))
        sessions.send("Longue réponse")
        doomed = sessions.current
        assert doomed is not None
        await wait_until(lambda: doomed.view.items() and kinds(doomed)[-1] == "AssistantMessage")
        sessions.delete_conversation(doomed.id)
        await wait_until(lambda: not sessions.runtime.store.exists(doomed.id))
        assert not doomed.runner.busy
        assert sessions.current is None
        assert opened.shown[-1] is None
        assert doomed.id not in sessions.by_id
        assert doomed.id not in sessions.conversations.ids()


async def test_a_new_theme_renders_the_open_conversation_again_in_its_colours(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    async with open_sessions(services, qtbot, ollama.url) as opened:
        sessions = opened.sessions
        ollama.script(Reply.text("Clair."))
        sessions.send("Bonjour")
        await opened.idle()
        light = sessions.current
        assert light is not None
        assert light.view.renderer.palette.name == "light"
        opened.theme.set_choice("dark")
        dark = sessions.current
        assert dark is not None
        assert dark is not light  # built again from the history, in the new colours
        assert dark.view.renderer.palette.name == "dark"
        await wait_until(lambda: kinds(dark) == ["UserMessage", "AssistantMessage"])
