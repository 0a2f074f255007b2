"""Réglages → Intelligence, « Retenir à la fin d'une conversation »: when the person leaves a
conversation, what it taught about them is kept and shown here, each with *Oublier*."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtWidgets import QFrame, QHBoxLayout, QVBoxLayout

from loki_desktop.core.events import Memorised
from loki_desktop.core.i18n import _
from loki_desktop.ui.chat.memory_items import MemorisedCard
from loki_desktop.ui.qt_helpers import OwnedTasks, button, label
from loki_desktop.ui.runtime import Runtime


class ExtractedBar(QFrame):
    """The memories the last conversation left, shown until closed (hidden when none)."""

    def __init__(self, forget: Callable[[int], None]) -> None:
        super().__init__()
        self.setObjectName("ExtractedBar")
        self._forget = forget
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 4, 0, 4)
        head = QHBoxLayout()
        head.addWidget(label(_("Retenu de la conversation précédente :"), "SidebarCaption"), 1)
        self.close_button = button(_("Fermer"), flat=True)
        self.close_button.clicked.connect(self.clear)
        head.addWidget(self.close_button)
        self._layout.addLayout(head)
        self.cards: list[MemorisedCard] = []
        self.hide()

    def show_kept(self, kept: Sequence[Memorised]) -> None:
        for memory in kept:
            card = MemorisedCard(memory.id, memory.text, self._forget)
            self.cards.append(card)
            self._layout.addWidget(card)
        self.setVisible(bool(self.cards))

    def clear(self) -> None:
        for card in self.cards:
            self._layout.removeWidget(card)
            card.deleteLater()
        self.cards = []
        self.hide()


class EndOfConversation:
    """Watches which conversation is on screen; the one left is read once by the model."""

    def __init__(self, runtime: Runtime, bar: ExtractedBar, tasks: OwnedTasks) -> None:
        self.runtime = runtime
        self.bar = bar
        self.tasks = tasks
        self.current: str | None = None
        self.read: dict[str, int] = {}  # conversation -> messages it had when last read

    def shown(self, conversation_id: str | None) -> None:
        left, self.current = self.current, conversation_id
        settings = self.runtime.settings
        if left is None or left == conversation_id or not settings.memory_extraction:
            return
        if self.runtime.memories is None:
            return
        self.tasks.spawn(self._extract(left))

    async def _extract(self, conversation_id: str) -> None:
        import asyncio

        from loki_desktop.core.memory.extract import extract

        memories, store = self.runtime.memories, self.runtime.store
        if memories is None or not self.runtime.settings.model:
            return
        messages = await asyncio.to_thread(store.messages, conversation_id)
        if len(messages) <= self.read.get(conversation_id, 0):
            return  # nothing new since it was read
        self.read[conversation_id] = len(messages)
        kept = await extract(
            memories, self.runtime.backend, self.runtime.settings.model, messages, conversation_id
        )
        self.bar.show_kept(kept)
