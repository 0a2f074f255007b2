"""The conversation list (new, rename, delete, search), lazy loading, remembered window state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit, QMessageBox

from loki_desktop.core.messages import ChatMessage
from loki_desktop.core.services import Services
from loki_desktop.ui.chat.items import AssistantMessage, UserMessage
from loki_desktop.ui.chat.view import PAGE_SIZE
from tests.fakes.ollama_server import FakeOllama
from tests.ui.helpers import open_window, wait_until


def seed(services: Services, conversations: dict[str, list[str]]) -> dict[str, str]:
    """Store conversations (title -> user/assistant texts, alternating); returns title -> id."""
    store = services.open_history()
    ids = {}
    for title, texts in conversations.items():
        conversation_id = store.create(title)
        for index, text in enumerate(texts):
            store.append(
                conversation_id, ChatMessage("user" if index % 2 == 0 else "assistant", text)
            )
        ids[title] = conversation_id
    close = getattr(store, "close", None)
    if callable(close):
        close()
    return ids


async def test_list_search_rename_delete_and_new(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    ids = seed(
        services,
        {
            "Recette de tarte": ["Une tarte aux pommes ?", "Oui, avec des pommes."],
            "Script de sauvegarde": ["rsync ou tar ?", "rsync."],
            "Voyage": ["Que voir à Lyon ?", "Le Vieux Lyon."],
        },
    )
    async with open_window(services, qtbot, ollama.url) as window:
        listing = window.conversations
        assert set(listing.ids()) == set(ids.values())

        # search looks into titles and message text
        listing.search.setText("pommes")
        await wait_until(lambda: listing.ids() == [ids["Recette de tarte"]])
        listing.search.setText("introuvable")
        await wait_until(lambda: listing.ids() == [])
        assert listing.empty.isVisibleTo(listing)
        assert "introuvable" in listing.empty.text()
        listing.search.clear()
        await wait_until(lambda: len(listing.ids()) == 3)

        # selecting opens it
        listing.select(None)
        item = listing.list.item(listing.ids().index(ids["Voyage"]))
        listing.list.setCurrentItem(item)
        assert window.sessions.current is not None
        assert window.sessions.current.id == ids["Voyage"]
        assert window.title.full_text == "Voyage"
        assert isinstance(window.sessions.current.view.items()[0], UserMessage)

        # rename in place: F2 (or double-click), type, Enter
        listing.start_rename(ids["Voyage"])
        editor = listing.list.findChild(QLineEdit)
        assert editor is not None
        editor.selectAll()
        qtbot.keyClicks(editor, "Week-end a Lyon")  # QTest types ASCII only
        qtbot.keyClick(editor, Qt.Key.Key_Return)
        await wait_until(lambda: window.runtime.store.list_conversations("Week-end"))
        assert window.runtime.store.list_conversations("Week-end")[0].id == ids["Voyage"]

        # delete asks first, then removes it everywhere
        box = listing.confirm_delete(ids["Voyage"])
        assert isinstance(box, QMessageBox)
        assert "Week-end a Lyon" in box.text()
        delete = next(b for b in box.buttons() if b.text() == "Supprimer")
        delete.click()
        await wait_until(lambda: ids["Voyage"] not in listing.ids())
        assert not window.runtime.store.exists(ids["Voyage"])
        assert window.sessions.current is None  # it was open: back to a new conversation
        assert window.stack.currentWidget() is window.welcome

        # new conversation: the welcome page and an empty composer
        listing.list.setCurrentRow(0)
        assert window.sessions.current is not None
        listing.new_button.click()
        assert window.sessions.current is None
        assert window.title.full_text == "Nouvelle conversation"
        assert QApplication.focusWidget() in (window.composer.input, None)


async def test_a_thousand_messages_open_lazily(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    texts = [f"message {i}" for i in range(1000)]
    ids = seed(services, {"Long": texts})
    settings = services.settings.load()
    settings.ui["conversation"] = ids["Long"]
    services.settings.save(settings)
    async with open_window(services, qtbot, ollama.url) as window:
        assert window.sessions.current is not None
        view = window.sessions.current.view
        items = view.items()
        # a page is read from the store, but only the turns near the bottom are built
        assert 0 < len(items) < PAGE_SIZE
        last = items[-1]
        assert isinstance(last, AssistantMessage)
        assert last.markdown() == "message 999"
        assert view.has_more

        # scrolling to the top brings the previous pages, in order
        bar = view.verticalScrollBar()
        while view.has_more:
            before = len(view.items())
            # laid out, and not at the top yet (what is built above is built ahead by itself)
            await wait_until(lambda: bar.value() > 100 or not view.has_more)
            bar.setValue(0)
            # a page came (or the last, empty page said there is nothing older)
            await wait_until(lambda b=before: len(view.items()) > b or not view.has_more)
        items = view.items()
        assert len(items) == 1000
        first = items[0]
        assert isinstance(first, UserMessage)
        assert first.text == "message 0"
        assert [i.text for i in items[:4] if isinstance(i, UserMessage)] == [
            "message 0",
            "message 2",
        ]


async def test_window_state_and_workspace_are_remembered(
    services: Services, ollama: FakeOllama, workspace: Path, qtbot: Any
) -> None:
    async with open_window(services, qtbot, ollama.url) as window:
        window.resize(1100, 700)
        window.splitter.setSizes([330, 770])
        window.workspace_picker.choose(str(workspace))
        window.problems_button.setChecked(True)
        window.right_splitter.setSizes([450, 250])
        await wait_until(lambda: window.problems.watching)
        sizes = window.splitter.sizes()
        right_sizes = window.right_splitter.sizes()
        window.save_state()

    saved = services.settings.load()
    assert saved.workspace == str(workspace)
    assert saved.recent_workspaces[0] == str(workspace)
    async with open_window(services, qtbot, ollama.url) as window:
        assert (window.width(), window.height()) == (1100, 700)
        assert window.splitter.sizes() == sizes
        assert window.right_splitter.sizes() == right_sizes
        assert window.problems_button.isChecked()
        assert window.workspace_picker.folder == str(workspace)
        assert window.runtime.workspace() == workspace
        assert window.workspace_picker.text() == f"Dossier : {workspace.name}"


async def test_a_refresh_during_a_rename_keeps_the_editor_open(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    ids = seed(services, {"Ancien titre": ["Bonjour", "Salut."], "Autre": ["a", "b"]})
    async with open_window(services, qtbot, ollama.url) as window:
        listing = window.conversations
        listing.start_rename(ids["Ancien titre"])
        editor = listing.list.findChild(QLineEdit)
        assert editor is not None
        editor.selectAll()
        qtbot.keyClicks(editor, "Nouveau titre")
        listing.refresh()  # what a turn ending in another conversation does
        assert editor.isVisible()
        qtbot.keyClick(editor, Qt.Key.Key_Return)
        await wait_until(lambda: window.runtime.store.list_conversations("Nouveau"))
        # the refresh asked for meanwhile happened once the editor closed
        await wait_until(lambda: listing.title_of(ids["Ancien titre"]) == "Nouveau titre")
        assert set(listing.ids()) == set(ids.values())
        assert window.title.full_text == "Nouveau titre"


async def test_a_saved_workspace_that_is_gone_is_dropped_at_start(
    services: Services, ollama: FakeOllama, tmp_path: Path, qtbot: Any
) -> None:
    gone = tmp_path / "gone"
    settings = services.settings.load()
    settings.workspace = str(gone)
    services.settings.save(settings)
    async with open_window(services, qtbot, ollama.url) as window:
        assert window.workspace_picker.text() == "Aucun dossier"
        assert window.runtime.settings.workspace == ""
        gone.mkdir()  # back while the window runs: still no file tools there
        assert window.runtime.workspace() is None
        window.save_state()
    assert services.settings.load().workspace == ""


async def test_up_and_down_keep_moving_in_the_list_and_typing_goes_to_the_composer(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    seed(services, {name: ["Question ?", "Réponse."] for name in ("Un", "Deux", "Trois")})
    async with open_window(services, qtbot, ollama.url) as window:
        listing = window.conversations.list
        window.activateWindow()

        def focused() -> bool:
            listing.setFocus()  # again if the start gave the focus to the composer meanwhile
            return listing.hasFocus()

        await wait_until(focused, what="the list never got the focus")
        order = window.conversations.ids()

        first_row = listing.visualItemRect(listing.item(0)).center()
        qtbot.mouseClick(listing.viewport(), Qt.MouseButton.LeftButton, pos=first_row)
        first = window.sessions.current
        assert first is not None
        assert first.id == order[0]
        assert listing.hasFocus()  # opening did not take the keyboard away

        qtbot.keyClick(listing, Qt.Key.Key_Down)
        assert window.sessions.current is not None
        assert window.sessions.current.id == order[1]
        qtbot.keyClick(listing, Qt.Key.Key_Up)
        assert window.sessions.current.id == order[0]
        assert listing.hasFocus()

        # typing goes to the composer (the list's type-to-find is not what people expect)
        qtbot.keyClicks(listing, "Salut")
        assert window.composer.text() == "Salut"
        assert window.composer.input.hasFocus()
        assert window.sessions.current.id == order[0]


async def test_switching_conversations_gives_freed_memory_back_once_quiet(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    """Closing a conversation's view frees its widgets; glibc keeps the pages unless asked
    (ui.heap_return): a burst of switches asks once, after the window went quiet."""
    ids = seed(services, {f"Conversation {n}": ["question", "réponse"] for n in range(3)})
    async with open_window(services, qtbot, ollama.url) as window:
        memory = window.sessions.heap_return
        if not memory.available:  # not glibc: nothing to give back, nothing scheduled
            window.sessions.open_conversation(ids["Conversation 0"])
            window.sessions.open_conversation(ids["Conversation 1"])
            assert not memory.pending
            assert memory.runs == 0
            return
        runs_before = memory.runs
        for title in ("Conversation 0", "Conversation 1", "Conversation 2"):
            window.sessions.open_conversation(ids[title])
        assert memory.pending  # two views were dropped: a trim waits for quiet
        await wait_until(lambda: not memory.pending)
        assert memory.runs == runs_before + 1  # one trim for the whole burst


async def test_the_view_left_is_deleted_before_the_next_one_is_built(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    """Switching, the old view goes at once (not at the next event-loop turn): the next
    view is built in its freed memory instead of beside it, so the C heap's high-water
    mark does not climb with each larger conversation opened (the soak bench)."""
    ids = seed(services, {f"Conversation {n}": ["question", "réponse"] * 3 for n in range(2)})
    async with open_window(services, qtbot, ollama.url) as window:
        sessions = window.sessions
        sessions.open_conversation(ids["Conversation 0"])
        old = sessions.current
        assert old is not None
        # when the old view goes, is the next conversation's session built already?
        next_built: list[bool] = []
        old.view.destroyed.connect(
            lambda: next_built.append(ids["Conversation 1"] in sessions.by_id)
        )
        sessions.open_conversation(ids["Conversation 1"])
        assert next_built == [False]  # gone first, and before the event loop turned
        assert not shiboken6.isValid(old)
        assert sessions.current is not None
        assert sessions.current.id == ids["Conversation 1"]
        assert len(sessions.current.view.items()) == 6
        # and back: the other view went the same way, the first one opens whole again
        view_1 = sessions.current.view
        sessions.open_conversation(ids["Conversation 0"])
        assert not shiboken6.isValid(view_1)
        assert len(sessions.current.view.items()) == 6
