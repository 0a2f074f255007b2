"""Memories in the window: the « Mémorisé » card and *Oublier*, the « Souvenirs : N » badge,
the Intelligence switch and the memory panel, on a real runtime and the scripted server."""

from __future__ import annotations

from typing import Any

from loki_desktop.core.services import Services
from loki_desktop.ui.chat.memory_items import MemorisedCard, RecallBadge
from loki_desktop.ui.settings.dialog import SettingsDialog
from loki_desktop.ui.settings.memory_panel import MemoryPanel, MemorySection
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.helpers import open_runtime, open_window, wait_until
from tests.ui.test_sessions import kinds, open_sessions


def _embed_with_the_chat_model(services: Services) -> None:
    # the scripted server embeds with any model it lists; the embedded model is not needed
    services.settings.update(lambda s: setattr(s, "embedding_model", "qwen2.5-coder:7b"))


async def test_a_kept_memory_shows_a_card_that_forgets_it_and_a_recall_shows_a_badge(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    _embed_with_the_chat_model(services)
    async with open_sessions(services, qtbot, ollama.url) as opened:
        sessions, runtime = opened.sessions, opened.sessions.runtime
        ollama.script(Reply.text("Noté."), Reply.text("Sur 10.0.0.7."), Reply.text("Noté."))
        sessions.send("Retiens que le NAS du bureau est en 10.0.0.7")
        await opened.idle()
        session = sessions.current
        assert kinds(session)[:2] == ["UserMessage", "MemorisedCard"]
        card = session.view.items()[1]
        assert isinstance(card, MemorisedCard)
        assert "10.0.0.7" in card.text.text()

        sessions.send("Quelle est l'adresse du NAS du bureau ?")
        await opened.idle()
        badges = [item for item in session.view.items() if isinstance(item, RecallBadge)]
        assert len(badges) == 1
        assert badges[0].toggle.text() == "Souvenirs : 1"
        assert badges[0].list.isHidden()
        badges[0].toggle.click()
        assert not badges[0].list.isHidden()
        assert "10.0.0.7" in badges[0].list.text()

        card.forget_button.click()
        memories = runtime.memories
        assert memories is not None
        await wait_until(lambda: memories.store().count() == 0, what="the memory forgotten")
        assert card.text.text() == "Oublié."
        assert not card.forget_button.isEnabled()


async def test_the_intelligence_switch_turns_memories_off(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        dialog: SettingsDialog = window.settings_opener.open()
        section = dialog.intelligence.memory
        assert isinstance(section, MemorySection)
        assert section.enabled.isChecked()
        section.enabled.setChecked(False)
        section.embedding_model.setText("nomic-embed-text")
        dialog.save()
        saved = services.settings.load()
        assert saved.memories is False
        assert saved.embedding_model == "nomic-embed-text"
        assert window.runtime.memories is None  # off: nothing is opened
        await dialog.tasks.cancel_all()


async def test_the_panel_lists_searches_and_forgets(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    _embed_with_the_chat_model(services)
    async with open_runtime(services, ollama.url) as runtime:
        memories = runtime.memories
        assert memories is not None
        from loki_desktop.core.memory.remember import keep

        for text in ("Mon chat s'appelle Moustache", "Le NAS est en 10.0.0.7"):
            await keep(memories, text, source="typed")
        panel = MemoryPanel(memories)
        qtbot.addWidget(panel)
        await wait_until(lambda: panel.list.count() == 2)
        panel.search.setText("Moustache")
        panel.refresh()
        await wait_until(lambda: panel.list.count() == 1)
        assert panel.list.item(0).text() == "Mon chat s'appelle Moustache"
        panel.list.setCurrentRow(0)
        panel.forget_selected()
        await wait_until(lambda: panel.list.count() == 0)
        panel.search.clear()
        await wait_until(lambda: panel.list.count() == 1)
        assert panel.list.item(0).text() == "Le NAS est en 10.0.0.7"
        panel.accept()
        await panel.tasks.cancel_all()


async def test_the_embedding_model_downloads_through_the_models_page(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    ollama.pull.library["embeddinggemma"] = (300_000, 500)  # in the scripted registry
    async with open_window(services, qtbot, ollama.url) as window:
        dialog: SettingsDialog = window.settings_opener.open()
        section = dialog.intelligence.memory
        assert section.embedding_model.text() == "embeddinggemma"
        section.download.click()
        assert dialog.PAGES[dialog.nav.currentRow()] == "models"
        await wait_until(lambda: "embeddinggemma" in ollama.models, what="the model pulled")
        pulls = [body for _m, path, body in ollama.requests if path == "/api/pull"]
        assert pulls[-1]["model"] == "embeddinggemma"
        await dialog.models.aclose()
        await dialog.tasks.cancel_all()


async def test_leaving_a_conversation_keeps_what_it_taught_when_the_setting_allows(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    def setup(settings: Any) -> None:
        settings.memory_extraction = True
        settings.model = "qwen2.5-coder:7b"

    services.settings.update(setup)
    async with open_window(services, qtbot, ollama.url) as window:
        ollama.script(Reply.text("Bien noté."), Reply.text('["Travaille avec Neovim"]'))
        window.sessions.send("J'écris tout mon code dans Neovim.")
        await wait_until(lambda: not window.sessions.current.runner.busy)
        window.sessions.new_conversation()  # the conversation is left: it is read once
        bar = window.extracted
        await wait_until(lambda: bar.cards, what="the extracted memory shown")
        assert bar.cards[0].text.text() == "Mémorisé : Travaille avec Neovim"
        memories = window.runtime.memories
        assert memories is not None
        assert [m.source for m in memories.store().recent()] == ["extracted"]
        bar.cards[0].forget_button.click()
        await wait_until(lambda: memories.store().count() == 0)
        bar.close_button.click()
        assert bar.isHidden()


async def test_leaving_a_conversation_reads_nothing_while_the_setting_is_off(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    services.settings.update(lambda s: setattr(s, "model", "qwen2.5-coder:7b"))
    async with open_window(services, qtbot, ollama.url) as window:
        ollama.script(Reply.text("Bien noté."))
        window.sessions.send("J'écris tout mon code dans Neovim.")
        await wait_until(lambda: not window.sessions.current.runner.busy)
        window.sessions.new_conversation()
        assert window.end_of_conversation.read == {}  # not read: no extraction started
        assert len(ollama.chat_requests) == 1  # no extraction call
        assert window.extracted.isHidden()


async def test_a_window_turn_searches_the_workspace_and_the_switch_turns_it_off(
    services: Services, ollama: FakeOllama, qtbot: Any, tmp_path: Any
) -> None:
    folder = tmp_path / "notes-folder"
    folder.mkdir()
    (folder / "maison.md").write_text("Le mot de passe du wifi est sous la box.\n")
    services.settings.update(lambda s: setattr(s, "embedding_model", ""))
    async with open_sessions(services, qtbot, ollama.url) as opened:
        runtime = opened.sessions.runtime
        runtime.settings.workspace = str(folder)
        runtime.settings.memories = False
        ollama.script(Reply.tool("search_workspace", {"query": "wifi"}), Reply.text("Sous la box."))
        opened.sessions.send("Où ai-je noté le mot de passe du wifi ?")
        await opened.idle()
        sent = ollama.chat_requests[1]["messages"][-1]
        assert sent["role"] == "tool"
        assert sent["content"].startswith("maison.md:1:")
        runtime.settings.workspace_index = False
        assert runtime.knowledge() is None


async def test_choosing_a_workspace_builds_its_index_in_the_background_with_a_progress_line(
    services: Services, ollama: FakeOllama, qtbot: Any, tmp_path: Any
) -> None:
    folder = tmp_path / "many-files"
    folder.mkdir()
    for n in range(60):
        (folder / f"note{n}.md").write_text(f"Note {n} : le code K{n:03d} est dans le classeur.\n")
    services.settings.update(lambda s: setattr(s, "embedding_model", ""))
    async with open_window(services, qtbot, ollama.url) as window:
        seen: list[tuple[int, int]] = []
        lines: list[str] = []
        shown = window._index_progress

        def track(done: int, total: int) -> None:
            seen.append((done, total))
            shown(done, total)
            if window.index_line.isVisibleTo(window):
                lines.append(window.index_line.text())

        window.workspace.on_index_progress = track
        window.workspace.choose(str(folder))
        await wait_until(lambda: seen and seen[-1] == (0, 0), what="the index built")
        assert (1, 60) in seen
        assert (60, 60) in seen
        assert "Index du dossier : 30 / 60 fichiers" in lines
        assert window.index_line.isHidden()  # done: the line is gone
        tools = window.runtime.knowledge()
        assert tools is not None
        hits = await tools.knowledge.search("K042")
        assert hits[0].path == "note42.md"
        # then the watcher feeds it: a turn reads only the file saved
        await wait_until(lambda: tools.knowledge.fed, what="the watcher feeding the index")
        (folder / "nouveau.md").write_text("Le digicode de la cave est 4821.\n")
        await wait_until(lambda: tools.knowledge.reported, what="the save reported")
        assert await tools.knowledge.update() == 1
        assert (await tools.knowledge.search("digicode"))[0].path == "nouveau.md"
