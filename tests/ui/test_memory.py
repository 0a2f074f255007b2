"""What the window keeps in memory over a long session: caches that must not grow per item."""

from __future__ import annotations

from typing import Any

from loki_desktop.ui.chat_items import NoticeLine


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
