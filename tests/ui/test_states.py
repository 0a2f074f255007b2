"""Honest states: the offline error told once, "connecté", a retried card cleared, the streaming
line and its jump button, one header per turn, a refusal after a restart, the sidebar's count,
the host Loki really uses, readable quotes."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from PySide6.QtGui import QGuiApplication

from loki_desktop.core.services import Services
from loki_desktop.ui.chat.items import AssistantMessage, Chip, ErrorCard, ToolCard
from loki_desktop.ui.text.markdown_render import MarkdownRenderer
from loki_desktop.ui.theme import LIGHT
from loki_desktop.ui.window.main_window import MainWindow
from loki_desktop.ui.window.turn_errors import Banner
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.helpers import open_window, wait_until


async def send_and_wait(window: MainWindow, text: str) -> None:
    window.composer.set_text(text)
    window.composer.submit()
    await wait_until(
        lambda: window.sessions.current is not None and not window.sessions.current.runner.busy
    )


def chips(window: MainWindow) -> list[str]:
    assert window.sessions.current is not None
    return [
        chip.text() for chip in window.sessions.current.view.findChildren(Chip) if chip.isVisible()
    ]


async def test_offline_is_said_once_then_connected_and_the_retried_card_goes(
    qtbot: Any, services: Services, offline_host: str
) -> None:
    async with open_window(services, qtbot, offline_host) as window:
        banner = window.banner
        assert isinstance(banner, Banner)
        await wait_until(lambda: banner.server_down)
        await send_and_wait(window, "Bonjour")
        view = window.sessions.current.view  # type: ignore[union-attr]
        card = view.last_error()
        assert card is not None
        await wait_until(lambda: card.offline, what="the card leaves the error to the banner")
        # told once: the banner explains; the card keeps the message and its Réessayer
        assert banner.isVisible()
        assert "ERREUR" not in chips(window)
        assert chips(window) == ["NON ENVOYÉ"]
        assert card.retry_button is not None
        assert card.retry_button.isEnabled()
        assert card.text.text().startswith("Ollama ne répond pas")

        # Ollama starts where Loki looks for it
        server = FakeOllama(port=urlparse(offline_host).port or 0).start()
        try:
            server.script(Reply.text("Me voilà."))
            banner.retry_button.click()
            await wait_until(lambda: banner.property("state") == "ok")
            assert banner.title.text().startswith("Connecté à ")
            assert not banner.retry_button.isVisible()
            await wait_until(lambda: not banner.isVisible(), what="'connecté' goes by itself")
            # the card's words follow: the server answers now, the message is still unsent
            assert card.text.text().startswith("Ollama répond de nouveau")
            assert chips(window) == ["NON ENVOYÉ"]

            card.retry_button.click()
            await wait_until(lambda: not window.sessions.current.runner.busy)  # type: ignore[union-attr]
            await wait_until(lambda: card not in view.items(), what="the answered card goes")
            assert not any(isinstance(item, ErrorCard) for item in view.items())
            answers = [i for i in view.items() if isinstance(i, AssistantMessage)]
            assert [a.markdown() for a in answers] == ["Me voilà."]
        finally:
            server.stop()


async def test_an_offline_card_left_behind_says_so_without_a_dead_button(
    qtbot: Any, services: Services, offline_host: str
) -> None:
    async with open_window(services, qtbot, offline_host) as window:
        await send_and_wait(window, "Premier")
        view = window.sessions.current.view  # type: ignore[union-attr]
        card = view.last_error()
        assert card is not None
        await wait_until(lambda: card.offline)
        await send_and_wait(window, "Second")  # still offline: a new card for this one
        assert card.retry_button is not None
        assert card.retry_button.isHidden()
        assert card.chip.text() == "SANS RÉPONSE"
        newest = view.last_error()
        assert newest is not card
        await wait_until(lambda: newest.offline)  # type: ignore[union-attr]
        assert chips(window) == ["SANS RÉPONSE", "NON ENVOYÉ"]


async def test_a_server_error_keeps_its_error_card(
    ollama: FakeOllama, qtbot: Any, services: Services
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        ollama.script(Reply.http_error(500, "GPU en feu"))
        await send_and_wait(window, "Bonjour")
        card = window.sessions.current.view.last_error()  # type: ignore[union-attr]
        assert card is not None
        # the server answered (with an error): nothing for the banner, the card says it
        session = window.sessions.current
        assert session is not None
        await wait_until(lambda: session.after_failure is not None and session.after_failure.done())
        assert not window.banner.isVisible()
        assert not card.offline
        assert "ERREUR" in chips(window)


async def test_the_streaming_line_and_the_jump_to_latest_button(
    ollama: FakeOllama, qtbot: Any, services: Services
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        status = window.stream_status
        assert not status.isVisible()
        words = [f"ligne {n}\n\n" for n in range(400)]
        ollama.script(Reply.text(*words, token_delay=0.01))
        window.composer.set_text("Raconte longuement")
        window.composer.submit()
        session = window.sessions.current
        assert session is not None
        await wait_until(lambda: status.isVisible())
        assert status.text.text().startswith("Loki répond…")
        assert not status.jump_button.isVisible()  # following the answer: nothing to jump to
        bar = session.view.verticalScrollBar()
        await wait_until(lambda: bar.maximum() > 200, what="the answer outgrows the view")
        bar.setValue(0)  # the person scrolls up to read
        await wait_until(lambda: status.jump_button.isVisible())
        status.jump_button.click()
        assert session.view.following
        assert not status.jump_button.isVisible()
        await wait_until(lambda: not session.runner.busy, within=60)
        assert not status.isVisible()


async def test_one_turn_has_one_loki_header_and_copies_whole(
    ollama: FakeOllama, qtbot: Any, services: Services, workspace: Path
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        window.workspace_picker.choose(str(workspace))
        ollama.script(
            Reply.tool("list_files", {"path": "."}, tokens=("Je regarde le dossier.",)),
            Reply.text("Il est vide."),
        )
        await send_and_wait(window, "Que contient le dossier ?")
        # as streamed, then reopened (leaving deletes the streamed view at once: checked first)
        one_header_copies_whole(window.sessions.current.view.items())  # type: ignore[union-attr]
        one_header_copies_whole(await reopened(window))


def one_header_copies_whole(view_items: list[Any]) -> None:
    answers = [i for i in view_items if isinstance(i, AssistantMessage)]
    assert len(answers) == 2
    first, second = answers
    assert not first.head.isHidden()
    assert second.head.isHidden()
    first.copy_button.click()
    copied = QGuiApplication.clipboard().text()
    assert copied == "Je regarde le dossier.\n\nIl est vide."


async def reopened(window: MainWindow) -> list[Any]:
    assert window.sessions.current is not None
    conversation = window.sessions.current.id
    window.sessions.new_conversation()
    window.sessions.open_conversation(conversation)
    assert window.sessions.current is not None
    return window.sessions.current.view.items()


async def test_a_refused_command_still_says_refuse_after_a_restart(
    ollama: FakeOllama, qtbot: Any, services: Services, workspace: Path
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        window.workspace_picker.choose(str(workspace))
        ollama.script(Reply.tool("run_shell", {"command": "touch y.txt"}), Reply.text("Soit."))
        window.composer.set_text("Crée y.txt")
        window.composer.submit()
        approver = window.sessions.current.approver  # type: ignore[union-attr]
        await wait_until(lambda: approver.dialog is not None)
        approver.dialog.deny_button.click()  # type: ignore[union-attr]
        await wait_until(lambda: not window.sessions.current.runner.busy)  # type: ignore[union-attr]
        items = await reopened(window)
        card = next(i for i in items if isinstance(i, ToolCard))
        assert card.chip.text() == "REFUSÉ"
        assert card.state == "refused"


async def test_a_new_conversation_does_not_say_0_messages(
    ollama: FakeOllama, qtbot: Any, services: Services
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        conversation = window.runtime.new_conversation("Vide pour l'instant")
        window.conversations.refresh()
        from loki_desktop.ui.chat.conversations import META_ROLE

        metas = [
            str(window.conversations.list.item(i).data(META_ROLE))
            for i in range(window.conversations.list.count())
        ]
        assert conversation in window.conversations.ids()
        assert not any("0 message" in meta for meta in metas)
        assert metas == ["à l'instant"]


async def test_the_host_field_shows_the_host_loki_uses(
    qtbot: Any, services: Services, offline_host: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", offline_host)
    async with open_window(services, qtbot) as window:
        assert window.runtime.host == offline_host
        dialog = window.settings_opener.open()
        try:
            assert dialog.general.host.text() == ""
            assert dialog.general.host.placeholderText() == offline_host
        finally:
            dialog.reject()


def test_a_quote_is_written_in_ink_not_muted_grey() -> None:
    html = MarkdownRenderer(LIGHT, "Copier").render("> Une citation à lire")
    assert f"color:{LIGHT.ink}" in html
    assert LIGHT.muted not in html


async def test_the_no_model_banner_says_below_only_over_the_list(
    qtbot: Any, services: Services
) -> None:
    with FakeOllama(models=()) as server:
        async with open_window(services, qtbot, server.url) as window:
            banner = window.banner
            await wait_until(window.downloads.first_model.isVisible, what="the first-run list")
            assert "ci-dessous" in banner.body.text()  # the welcome page: the list is below
            store = window.runtime.store
            window.sessions.open_conversation(store.create("Une ancienne conversation"))
            assert banner.isVisible()
            assert "ci-dessous" not in banner.body.text()  # nothing is below a conversation
            assert "nouvelle conversation" in banner.body.text()
            window.sessions.new_conversation()
            assert "ci-dessous" in banner.body.text()


async def test_the_welcome_page_asks_for_a_folder_only_without_one(
    qtbot: Any, services: Services, offline_host: str, tmp_path: Path
) -> None:
    async with open_window(services, qtbot, offline_host) as window:
        intro = window.welcome.intro
        window.workspace_picker.choose("")
        assert "Choisissez un dossier de travail" in intro.text()
        folder = tmp_path / "projet-ventes"
        folder.mkdir()
        window.workspace_picker.choose(str(folder))
        assert "Choisissez un dossier" not in intro.text()
        assert "« projet-ventes »" in intro.text()
        window.workspace_picker.choose("")
        assert "Choisissez un dossier de travail" in intro.text()
