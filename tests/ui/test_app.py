"""The app around the window: Ollama absent, the quick prompt, the tray menu, closing, hand-off."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlparse

from loki_desktop.core.services import Services
from loki_desktop.ui.chat_items import AssistantMessage, ErrorCard, UserMessage
from loki_desktop.ui.main import App
from loki_desktop.ui.single_instance import socket_name
from loki_desktop.ui.theme import Theme
from loki_desktop.ui.tray import LokiTray
from tests.fakes.demo_conversation import QUICK_ANSWER, QUICK_QUESTION, reply_for
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.helpers import no_tasks_left, open_runtime, open_window, wait_until


@contextlib.asynccontextmanager
async def running_app(services: Services, host: str) -> AsyncIterator[App]:
    """The app's own start and stop around a runtime (what `ui.main.run` does, minus exec)."""
    app = App(services, socket_name(services.data_home))
    async with open_runtime(services, host) as runtime:
        app.start(runtime, Theme("light"))
        assert app.window is not None
        await app.window.start()
        try:
            yield app
        finally:
            await app.stop(runtime)
    await no_tasks_left()


async def test_without_ollama_the_window_says_so_and_no_turn_is_lost(
    services: Services, offline_host: str, qtbot: Any
) -> None:
    async with open_window(services, qtbot, offline_host) as window:
        banner = window.banner
        assert banner.isVisibleTo(window)
        assert banner.title.text() == f"Ollama n'est pas joignable à {offline_host}"
        assert "ollama serve" in banner.body.text()
        assert "https://ollama.com/download" in banner.body.text()
        assert not window.model_picker.isEnabled()

        # a message sent meanwhile is kept, and the error offers a retry
        window.composer.set_text("Tu es là ?")
        window.composer.submit()
        session = window.current
        assert session is not None
        await wait_until(lambda: not session.runner.busy)
        error = session.view.items()[-1]
        assert isinstance(error, ErrorCard)
        assert "injoignable" in error.message
        stored = window.runtime.store.messages(session.id)
        assert [(m.role, m.content) for m in stored] == [("user", "Tu es là ?")]

        # Ollama starts at that address: Retry on the banner, then on the message
        port = urlparse(offline_host).port
        assert port is not None
        with FakeOllama(port=port) as ollama:
            ollama.script(Reply.text("Oui, ", "me voilà."))
            banner.retry_button.click()
            await wait_until(lambda: not banner.isVisibleTo(window))
            assert window.model_picker.isEnabled()
            assert window.model_picker.current_model() == "qwen2.5-coder:7b"
            assert error.retry_button is not None
            error.retry_button.click()
            await wait_until(lambda: not session.runner.busy)
            await wait_until(lambda: isinstance(session.view.items()[-1], AssistantMessage))
            answer = session.view.items()[-1]
            assert isinstance(answer, AssistantMessage)
            assert answer.markdown() == "Oui, me voilà."
            assert [m.role for m in window.runtime.store.messages(session.id)] == [
                "user",
                "assistant",
            ]


async def test_quick_prompt_streams_in_place_and_opens_in_the_window(
    services: Services, ollama: FakeOllama
) -> None:
    ollama.script(lambda body: reply_for(body, token_delay=0.01))
    async with running_app(services, ollama.url) as app:
        quick, window = app.quick, app.window
        assert quick is not None
        assert window is not None
        app.on_message({"action": "quick", "text": QUICK_QUESTION})  # what `--quick` sends
        assert quick.isVisible()
        assert quick.runner.busy
        await wait_until(lambda: quick.view.streaming_message is not None)
        assert not quick.open_button.isEnabled()  # while it streams
        await wait_until(lambda: not quick.runner.busy)
        question, answer = quick.view.items()
        assert isinstance(question, UserMessage)
        assert question.text == QUICK_QUESTION
        assert isinstance(answer, AssistantMessage)
        assert answer.markdown() == QUICK_ANSWER
        # listed in the main window as soon as it ends, before anyone opens it
        assert quick.conversation_id in window.conversations.ids()

        window.hide()
        assert quick.open_button.isEnabled()
        quick.open_button.click()
        assert not quick.isVisible()
        assert window.isVisible()
        assert window.current is not None
        assert window.current.id == quick.conversation_id
        assert [type(i).__name__ for i in window.current.view.items()] == [
            "UserMessage",
            "AssistantMessage",
        ]
        assert quick.conversation_id in window.conversations.ids()


async def test_tray_menu_actions(services: Services, ollama: FakeOllama) -> None:
    async with running_app(services, ollama.url) as app:
        window, quick = app.window, app.quick
        assert window is not None
        assert quick is not None
        tray = LokiTray(on_quick=quick.present, on_open=app.show_window, on_quit=app.done.set)
        assert [a.text() for a in tray.menu.actions() if not a.isSeparator()] == [
            "Question rapide…",
            "Ouvrir Loki",
            "Quitter",
        ]
        assert tray.icon.contextMenu() is tray.menu
        assert not tray.icon.icon().isNull()
        tray.quick_action.trigger()
        assert quick.isVisible()
        quick.hide()
        window.keep_in_tray = True
        window.close()  # with a tray, closing hides: Loki stays running
        assert not window.isVisible()
        assert not app.done.is_set()
        tray.open_action.trigger()
        assert window.isVisible()
        tray.quit_action.trigger()
        assert app.done.is_set()


async def test_closing_the_window_without_a_tray_quits(
    services: Services, ollama: FakeOllama
) -> None:
    async with running_app(services, ollama.url) as app:
        assert app.tray is None  # offscreen has no tray host
        assert app.window is not None
        assert not app.window.keep_in_tray
        app.window.close()
        assert app.done.is_set()
