"""The app around the window: Ollama absent, the quick prompt, the tray menu, closing, hand-off."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from loki_desktop.core.services import Services
from loki_desktop.ui.chat.items import AssistantMessage, ErrorCard, NoticeLine, UserMessage
from loki_desktop.ui.main import App
from loki_desktop.ui.single_instance import socket_name
from loki_desktop.ui.theme import Theme
from loki_desktop.ui.tray import LokiTray
from tests.fakes.demo_conversation import QUICK_ANSWER, QUICK_QUESTION, reply_for
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.helpers import no_tasks_left, open_runtime, open_window, set_host, wait_until


@contextlib.asynccontextmanager
async def running_app(services: Services, host: str) -> AsyncIterator[App]:
    """The app's own start and stop around a runtime (what `ui.main.run` does, minus exec)."""
    app = App(services, socket_name(services.data_home))
    async with open_runtime(services, host) as runtime:
        await app.start(runtime, Theme("light"))  # the window shown, Ollama asked
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
        session = window.sessions.current
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
        assert app.quick is None  # built at its first use, not before the first frame
        app.on_message({"action": "quick", "text": QUICK_QUESTION})  # what `--quick` sends
        quick, window = app.quick, app.window
        assert quick is not None
        assert window is not None
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
        asked = quick.conversation_id
        quick.open_button.click()
        assert not quick.isVisible()
        assert window.isVisible()
        assert window.sessions.current is not None
        assert window.sessions.current.id == asked
        assert [type(i).__name__ for i in window.sessions.current.view.items()] == [
            "UserMessage",
            "AssistantMessage",
        ]
        assert asked in window.conversations.ids()
        assert quick.conversation_id is None  # the window has it: the next question is new


async def test_tray_menu_actions(services: Services, ollama: FakeOllama) -> None:
    async with running_app(services, ollama.url) as app:
        window, quick = app.window, app.quick_prompt()
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


async def test_after_open_in_loki_the_next_quick_question_starts_a_new_conversation(
    services: Services, ollama: FakeOllama
) -> None:
    async with running_app(services, ollama.url) as app:
        quick, window = app.quick_prompt(), app.window
        assert quick is not None
        assert window is not None
        ollama.script(Reply.text("Un."))
        quick.ask("Première")
        await wait_until(lambda: not quick.runner.busy)
        first = quick.conversation_id
        quick.open_button.click()
        assert window.sessions.current is not None
        assert window.sessions.current.id == first

        # the window goes on in that conversation while a new quick question is asked
        slow = Reply.text(*[f"w{i} " for i in range(20)], token_delay=0.02)
        ollama.script(slow, slow)
        window.composer.set_text("Dans la fenêtre")
        window.composer.submit()
        quick.present()
        quick.input.setText("Dans la question rapide")
        quick.submit()
        assert quick.conversation_id not in (None, first)
        assert window.sessions.current.runner.busy
        assert quick.runner.busy
        await wait_until(lambda: not quick.runner.busy and not window.sessions.current.runner.busy)
        store = window.runtime.store
        assert [m.role for m in store.messages(first)] == ["user", "assistant"] * 2
        assert [m.content for m in store.messages(first)][2] == "Dans la fenêtre"
        assert quick.conversation_id is not None
        assert store.messages(quick.conversation_id)[0].content == "Dans la question rapide"


async def test_each_quick_request_starts_a_new_conversation(
    services: Services, ollama: FakeOllama
) -> None:
    async with running_app(services, ollama.url) as app:
        quick = app.quick_prompt()
        assert quick is not None
        ollama.script(Reply.text("Un."), Reply.text("Deux."))
        app.on_message({"action": "quick", "text": "Une"})  # `--quick`, a second launch
        await wait_until(lambda: not quick.runner.busy)
        first = quick.conversation_id
        app.on_message({"action": "quick", "text": "Deux"})
        await wait_until(lambda: not quick.runner.busy)
        assert quick.conversation_id not in (None, first)
        assert [type(i).__name__ for i in quick.view.items()] == [
            "UserMessage",
            "AssistantMessage",
        ]
        # the tray's "Question rapide…" opens an empty box too
        quick.present_new()
        assert quick.conversation_id is None
        assert quick.view.items() == []


async def test_a_conversation_never_runs_two_turns_at_once(
    services: Services, ollama: FakeOllama
) -> None:
    async with running_app(services, ollama.url) as app:
        quick, window = app.quick_prompt(), app.window
        assert quick is not None
        assert window is not None
        ollama.script(Reply.text(*[f"q{i} " for i in range(30)], token_delay=0.02))
        quick.ask("Question rapide")
        conversation = quick.conversation_id
        assert conversation is not None
        window.conversations.refresh()
        # from the sidebar, while the quick one runs
        window.sessions.open_conversation(conversation)
        window.composer.set_text("Et dans la fenêtre ?")
        window.composer.submit()
        session = window.sessions.current
        assert session is not None
        assert not session.runner.busy  # refused, and said so; the text is kept
        assert window.composer.text() == "Et dans la fenêtre ?"
        notice = session.view.items()[-1]
        assert isinstance(notice, NoticeLine)
        assert "question rapide" in notice.message
        await wait_until(lambda: not quick.runner.busy)
        # the window shows what the quick prompt added, then can go on
        await wait_until(
            lambda: isinstance(window.sessions.current.view.items()[-1], AssistantMessage)
        )
        ollama.script(Reply.text("Oui."))
        window.composer.submit()
        assert window.sessions.current.runner.busy
        await wait_until(lambda: not window.sessions.current.runner.busy)
        assert [m.role for m in window.runtime.store.messages(conversation)] == [
            "user",
            "assistant",
            "user",
            "assistant",
        ]


async def test_a_silent_ollama_holds_neither_the_watcher_nor_the_window(
    services: Services, workspace: Path, silent_host: str
) -> None:
    settings = services.settings.load()
    settings.workspace = str(workspace)
    services.settings.save(settings)
    app = App(services, socket_name(services.data_home))
    async with open_runtime(services, silent_host) as runtime:
        runtime.models_timeout_s = 30.0
        started = app.start(runtime, Theme("light"))
        assert app.window is not None
        window = app.window
        try:
            # the workspace is watched while the model list is still awaited
            await wait_until(lambda: window.problems_feed.watcher is not None, within=10)
            assert not started.done()
            assert window.banner.retry_button.text() == "Vérification…"
        finally:
            await app.stop(runtime)
    await no_tasks_left()


async def test_a_silent_ollama_is_reported_within_the_timeout(
    services: Services, silent_host: str, qtbot: Any
) -> None:
    set_host(services, silent_host)
    app = App(services, socket_name(services.data_home))
    async with open_runtime(services) as runtime:
        runtime.models_timeout_s = 0.3
        started = app.start(runtime, Theme("light"))
        window = app.window
        assert window is not None
        try:
            await wait_until(started.done, within=5)
            assert window.banner.isVisibleTo(window)
            assert window.banner.title.text() == f"Ollama ne répond pas à {silent_host}"
            assert "aucune réponse en 0.3 s" in window.banner.body.text()
            assert window.banner.retry_button.isEnabled()
        finally:
            await app.stop(runtime)
    await no_tasks_left()


async def test_a_late_answer_about_an_older_host_does_not_overwrite_a_newer_one(
    services: Services, ollama: FakeOllama, silent_host: str, qtbot: Any
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        window.runtime.models_timeout_s = 0.5
        window.runtime.set_host(silent_host)
        older = window.server_status.check()  # waits for an answer that never comes
        await wait_until(lambda: not window.banner.retry_button.isEnabled())  # it is asking
        window.runtime.set_host(ollama.url)  # the user fixes the host in the settings
        newer = window.server_status.check()
        await wait_until(lambda: not window.banner.isVisibleTo(window))
        # both checks are over: the older one can no longer write anything
        await asyncio.wait([older, newer], timeout=30)
        assert older.done()
        assert newer.done()
        assert not window.banner.isVisibleTo(window)
        assert window.model_picker.isEnabled()
        assert window.banner.retry_button.isEnabled()


async def test_a_corrupt_history_is_said_at_start_and_the_window_works(
    services: Services, loki_home: Path, qtbot: Any, ollama: FakeOllama
) -> None:
    (loki_home / "history.db").write_bytes(b"\x00not a database" * 200)
    async with open_window(services, qtbot, ollama.url) as window:
        bar = window.notice_bar
        assert bar.isVisibleTo(window)
        assert "mis de côté" in bar.text.text()
        kept = [p.name for p in loki_home.iterdir() if p.name.startswith("history.corrupt-")]
        assert len(kept) == 1
        assert window.runtime.pending_notices == []  # said once: not again at the first turn
        bar.close_button.click()
        assert not bar.isVisibleTo(window)
        ollama.script(Reply.text("Tout va bien."))
        window.sessions.send("Bonjour")
        await wait_until(
            lambda: window.sessions.current is not None and not window.sessions.current.runner.busy
        )
        assert window.sessions.current is not None
        assert [m.role for m in window.runtime.store.messages(window.sessions.current.id)] == [
            "user",
            "assistant",
        ]


async def test_no_notice_bar_when_nothing_went_wrong(
    services: Services, qtbot: Any, ollama: FakeOllama
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        assert not window.notice_bar.isVisibleTo(window)
