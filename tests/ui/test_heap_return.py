"""What the window keeps in memory over a long session: caches that must not grow per item."""

from __future__ import annotations

from typing import Any

import shiboken6

from loki_desktop.core.services import Services
from loki_desktop.ui.chat.conversations import ID_ROLE, META_ROLE
from loki_desktop.ui.chat.items import NoticeLine
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.ui.helpers import open_window, wait_until
from tests.ui.test_conversations import seed


def test_every_notice_draws_the_same_cached_icon(qtbot: Any) -> None:
    """A new SVG icon per notice put a new pixmap in QPixmapCache for each notice ever
    shown (kept until the cache's 10 MB were full, each one pinning a page of the C heap
    once its conversation was closed): all notices share one icon and one pixmap."""
    notices = [NoticeLine(f"note {n}") for n in range(3)]
    for notice in notices:
        qtbot.addWidget(notice)
    keys = {notice.icon.pixmap().cacheKey() for notice in notices}
    assert len(keys) == 1
    assert not notices[0].icon.pixmap().isNull()


async def test_going_to_the_welcome_page_frees_the_view_then_gives_memory_back(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    """The view left for the welcome page goes at once (as when another conversation is
    opened), so the trim the switch asks for finds its memory free; the trim follows."""
    ids = seed(services, {"Conversation": ["question", "réponse"] * 3})
    async with open_window(services, qtbot, ollama.url) as window:
        sessions = window.sessions
        sessions.open_conversation(ids["Conversation"])
        await wait_until(lambda: not sessions.heap_return.pending)
        left = sessions.current
        assert left is not None
        view = left.view
        runs = sessions.heap_return.runs
        sessions.new_conversation()
        assert not shiboken6.isValid(view)  # before the event loop turned
        assert not shiboken6.isValid(left)
        if sessions.heap_return.available:  # glibc: the freed memory goes back
            await wait_until(lambda: sessions.heap_return.runs == runs + 1)


async def test_the_conversation_list_is_updated_in_place_after_a_turn(
    services: Services, ollama: FakeOllama, qtbot: Any
) -> None:
    """After each turn the list was cleared and rebuilt (new items and strings made while a
    conversation's view was alive, left among its freed pages when it closed): the items
    stay, the one that had a turn moves to the top and says its new size."""
    ids = seed(services, {f"Conversation {n}": ["question", "réponse"] for n in range(3)})
    async with open_window(services, qtbot, ollama.url) as window:
        listing = window.conversations.list
        items = [listing.item(row) for row in range(listing.count())]
        oldest = ids["Conversation 0"]
        assert [item.data(ID_ROLE) for item in items][-1] == oldest
        window.sessions.open_conversation(oldest)
        ollama.script(Reply.text("D'accord."))
        window.composer.set_text("encore")
        window.composer.submit()
        session = window.sessions.current
        assert session is not None
        await wait_until(lambda: listing.item(0).data(ID_ROLE) == oldest)
        await session.runner.wait()
        await wait_until(lambda: "4 messages" in str(listing.item(0).data(META_ROLE)))
        assert all(shiboken6.isValid(item) for item in items)  # the same items, moved
        assert [listing.row(item) for item in items] == [1, 2, 0]
        assert window.conversations.ids() == [oldest, ids["Conversation 2"], ids["Conversation 1"]]
        assert window.conversations.current_id() == oldest
