"""The sidebar: Loki's name, a new-conversation button, search, and the conversation list."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import (
    QCoreApplication,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QFont, QFontMetrics, QKeyEvent, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from loki_desktop.core.i18n import N_, _, ngettext
from loki_desktop.core.messages import ConversationInfo
from loki_desktop.core.ports import ConversationStore
from loki_desktop.ui.qt_helpers import button, label
from loki_desktop.ui.theme import app_icon

ID_ROLE = Qt.ItemDataRole.UserRole
META_ROLE = Qt.ItemDataRole.UserRole + 1
PINNED_ROLE = Qt.ItemDataRole.UserRole + 2
SEARCH_DELAY_MS = 200
# The key of a group's header row (never a conversation id: ids are hex)
HEADER = "\x00"


# marked for extraction; translated when shown, by `when`
MONTHS = (
    N_("janv."),
    N_("févr."),
    N_("mars"),
    N_("avr."),
    N_("mai"),
    N_("juin"),
    N_("juil."),
    N_("août"),
    N_("sept."),
    N_("oct."),
    N_("nov."),
    N_("déc."),
)


def when(timestamp: float, now: float | None = None) -> str:
    """A short "how long ago" for the list."""
    now = time.time() if now is None else now
    seconds = max(0.0, now - timestamp)
    if seconds < 60:
        return _("à l'instant")
    if seconds < 3600:
        return _("il y a {n} min").format(n=int(seconds // 60))
    if seconds < 86400:
        return _("il y a {n} h").format(n=int(seconds // 3600))
    if seconds < 2 * 86400:
        return _("hier")
    local = time.localtime(timestamp)
    month = _(MONTHS[local.tm_mon - 1])
    return f"{local.tm_mday} {month}"


class ConversationDelegate(QStyledItemDelegate):
    """Two lines per conversation: the title in bold, then its size and age."""

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        metrics = QFontMetrics(option.font)
        if is_header(index.data(ID_ROLE)):
            return QSize(100, metrics.lineSpacing() + 12)
        # narrow: the list's width decides (a wider hint would add a horizontal scroll bar)
        return QSize(100, metrics.lineSpacing() * 2 + 22)

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        self.initStyleOption(option, index)
        if is_header(index.data(ID_ROLE)):
            self._paint_header(painter, option, index)
            return
        widget = option.widget
        style = widget.style() if widget is not None else None
        if style is not None:
            style.drawPrimitive(
                QStyle.PrimitiveElement.PE_PanelItemViewItem, option, painter, widget
            )
        rect = option.rect.adjusted(12, 8, -10, -6)
        palette = option.palette
        painter.save()
        title_font = QFont(option.font)
        title_font.setBold(True)
        painter.setFont(title_font)
        painter.setPen(palette.color(palette.ColorRole.Text))
        title = QFontMetrics(title_font).elidedText(
            str(index.data(Qt.ItemDataRole.DisplayRole) or ""),
            Qt.TextElideMode.ElideRight,
            rect.width(),
        )
        line = QFontMetrics(title_font).lineSpacing()
        painter.drawText(rect.x(), rect.y() + line - 4, title)
        meta_font = QFont(option.font)
        meta_font.setPointSizeF(max(7.0, option.font.pointSizeF() - 1.5))
        painter.setFont(meta_font)
        painter.setPen(palette.color(palette.ColorRole.PlaceholderText))
        painter.drawText(rect.x(), rect.y() + 2 * line, str(index.data(META_ROLE) or ""))
        painter.restore()

    @staticmethod
    def _paint_header(
        painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        """A group's caption: the folder's name in small capitals, muted."""
        rect = option.rect.adjusted(4, 8, -4, -2)
        font = QFont(option.font)
        font.setBold(True)
        font.setPointSizeF(max(7.0, option.font.pointSizeF() - 1.5))
        painter.save()
        painter.setFont(font)
        painter.setPen(option.palette.color(option.palette.ColorRole.PlaceholderText))
        text = QFontMetrics(font).elidedText(
            str(index.data(Qt.ItemDataRole.DisplayRole) or "").upper(),
            Qt.TextElideMode.ElideMiddle,
            rect.width(),
        )
        painter.drawText(
            rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), text
        )
        painter.restore()


def is_header(key: object) -> bool:
    return isinstance(key, str) and key.startswith(HEADER)


def grouped(conversations: list[ConversationInfo]) -> list[tuple[str, ConversationInfo | str]]:
    """The rows of the list: pinned conversations first, then one group per workspace
    folder (the project), latest first, each under its header; no headers at all when every
    conversation is in one group and none is pinned."""
    groups: dict[str | None, list[ConversationInfo]] = {}
    pinned = [info for info in conversations if info.pinned]
    for info in conversations:
        if not info.pinned:
            groups.setdefault(info.workspace, []).append(info)
    if not pinned and len(groups) <= 1:
        return [(info.id, info) for info in conversations]
    rows: list[tuple[str, ConversationInfo | str]] = []
    if pinned:
        rows.append((HEADER + "pinned", _("Épinglées")))
        rows += [(info.id, info) for info in pinned]
    for folder, members in groups.items():
        name = Path(folder).name or folder if folder else _("Sans dossier")
        rows.append((HEADER + (folder or ""), name))
        rows += [(info.id, info) for info in members]
    return rows


class ConversationList(QFrame):
    """Lists (pinned first, grouped by workspace folder), searches, pins, renames and
    deletes conversations; emits the one to open, and the one to export."""

    selected = Signal(str)
    new_requested = Signal()
    delete_confirmed = Signal(str)  # the window stops its turn, then deletes
    renamed = Signal(str, str)  # conversation id, new title
    export_requested = Signal(str)  # conversation id: the window asks where to save it

    def __init__(
        self,
        store: Callable[[], ConversationStore],
        parent: QWidget | None = None,
        workspace: Callable[[], Path | None] = lambda: None,
    ) -> None:
        super().__init__(parent)
        self._workspace = workspace  # the window's folder: the filter keeps its conversations
        self.setObjectName("Sidebar")
        self.setMinimumWidth(220)
        self._store = store
        self._updating = False
        # a refresh asked for while a title is being edited (clearing the list would close
        # the editor and lose the rename): its `select`, done once the editor closes
        self._postponed: tuple[str | None] | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 14, 14, 10)
        layout.setSpacing(10)

        brand = QHBoxLayout()
        brand.setSpacing(10)
        logo = QLabel()
        logo.setPixmap(app_icon().pixmap(40, 40))
        brand.addWidget(logo)
        names = QVBoxLayout()
        names.setSpacing(0)
        names.addWidget(label("LOKI", "Brand"))
        names.addWidget(label(_("BUREAU · MODÈLES LOCAUX"), "BrandTagline"))
        brand.addLayout(names)
        brand.addStretch(1)
        layout.addLayout(brand)

        self.new_button = button(_("+  Nouvelle conversation"), primary=True)
        self.new_button.setObjectName("NewConversation")
        self.new_button.clicked.connect(self.new_requested)
        layout.addWidget(self.new_button)

        self.search = QLineEdit()
        self.search.setObjectName("Search")
        self.search.setPlaceholderText(_("Rechercher dans les conversations…"))
        self.search.setClearButtonEnabled(True)
        layout.addWidget(self.search)
        self.this_folder = QCheckBox(_("Ce dossier"))
        layout.addLayout(self._caption())

        self.list = QListWidget()
        self.list.setObjectName("ConversationList")
        self.list.setItemDelegate(ConversationDelegate(self.list))
        self.list.setEditTriggers(
            QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.DoubleClicked
        )
        self.list.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._menu)
        self.list.currentItemChanged.connect(self._on_current)
        # Up/Down keep moving in the list after an open; what is typed goes to `type_target`
        self.type_target: QWidget | None = None
        self.list.installEventFilter(self)
        self.list.itemChanged.connect(self._on_renamed)
        self._after_edit = QTimer(self)
        self._after_edit.setSingleShot(True)
        self._after_edit.setInterval(0)  # after the view has finished closing the editor
        self._after_edit.timeout.connect(self._refresh_postponed)
        delegate = self.list.itemDelegate()
        assert delegate is not None
        delegate.closeEditor.connect(lambda *_args: self._after_edit.start())
        self.empty = label(_("Aucune conversation."), "Notice", wrap=True)
        layout.addWidget(self.empty)
        layout.addWidget(self.list, 1)
        # Tab from the search goes to the list (as before the folder filter was added)
        QWidget.setTabOrder(self.search, self.list)
        QWidget.setTabOrder(self.list, self.this_folder)

        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self.refresh)
        self.search.textChanged.connect(lambda _text: self._search_timer.start())

    def _caption(self) -> QHBoxLayout:
        """CONVERSATIONS, and the filter that keeps the working folder's."""
        caption = QHBoxLayout()
        caption.addWidget(label(_("CONVERSATIONS"), "SidebarCaption"))
        caption.addStretch(1)
        self.this_folder.setObjectName("ThisFolderOnly")
        self.this_folder.setToolTip(_("Seulement les conversations du dossier de travail"))
        self.this_folder.toggled.connect(lambda _on: self.refresh())
        caption.addWidget(self.this_folder)
        return caption

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.list
            and event.type() == QEvent.Type.KeyPress
            and self.type_target is not None
            and self.list.state() != QAbstractItemView.State.EditingState
            and isinstance(event, QKeyEvent)
            and _is_typing(event)
        ):
            self.type_target.setFocus()
            QCoreApplication.sendEvent(self.type_target, event)
            return True
        return super().eventFilter(watched, event)

    # --- content --------------------------------------------------------------------

    def refresh(self, select: str | None = None) -> None:
        """Reload the list (filtered by the search text) and keep or set the selection."""
        if self.list.state() == QAbstractItemView.State.EditingState:
            self._postponed = (select,)
            return
        current = select if select is not None else self.current_id()
        query = self.search.text().strip()
        folder = self._workspace() if self.this_folder.isChecked() else None
        conversations = self._store().list_conversations(
            query, str(folder) if folder is not None else None
        )
        self._updating = True
        try:
            self._fill(grouped(conversations))
            self._select(current)
        finally:
            self._updating = False
        if query:
            self.empty.setText(_("Aucune conversation ne contient « {q} ».").format(q=query))
        else:
            self.empty.setText(_("Aucune conversation pour l'instant."))
        self.empty.setVisible(not conversations)

    def _refresh_postponed(self) -> None:
        if self._postponed is not None:
            (select,) = self._postponed
            self._postponed = None
            self.refresh(select)

    def _fill(self, rows: list[tuple[str, ConversationInfo | str]]) -> None:
        """The list in `rows`' order, its items kept and updated in place: rebuilt
        after every turn, it made ~100 small strings and items each time while a
        conversation's view was alive, and those left alone among the view's freed pages
        kept them resident (the soak bench)."""
        keep = {key for key, _row in rows}
        for row in reversed(range(self.list.count())):  # gone (deleted, searched out)
            if self.list.item(row).data(ID_ROLE) not in keep:
                self.list.takeItem(row)
        listed = {self.list.item(row).data(ID_ROLE) for row in range(self.list.count())}
        for row, (key, info) in enumerate(rows):
            here = self.list.item(row)
            if here is not None and here.data(ID_ROLE) == key:
                item = here
            elif key in listed:  # moved up (its conversation just had a turn)
                item = self.list.takeItem(self.list.row(self._find(key, row)))
                self.list.insertItem(row, item)
            else:
                item = QListWidgetItem()
                item.setData(ID_ROLE, key)
                if is_header(key):  # a caption: not selectable, skipped by the arrows
                    item.setFlags(Qt.ItemFlag.NoItemFlags)
                else:
                    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
                self.list.insertItem(row, item)
            if isinstance(info, str):
                if item.text() != info:
                    item.setText(info)
                    item.setToolTip(key[len(HEADER) :] or info)
            else:
                self._show_info(item, info)

    def _find(self, conversation_id: str, start: int) -> QListWidgetItem:
        for row in range(start, self.list.count()):
            item = self.list.item(row)
            if item.data(ID_ROLE) == conversation_id:
                return item
        raise LookupError(conversation_id)

    @staticmethod
    def _show_info(item: QListWidgetItem, info: ConversationInfo) -> None:
        """Title, size and age; a value set again only when it changed (no new string)."""
        count = info.message_count
        size = ngettext("{n} message", "{n} messages", count).format(n=count)
        # a conversation just made has no message stored yet: its age only, not "0 messages"
        meta = f"{size} · {when(info.updated_at)}" if count else when(info.updated_at)
        if item.data(PINNED_ROLE) != info.pinned:
            item.setData(PINNED_ROLE, info.pinned)
        if item.text() != info.title:
            item.setText(info.title)
            item.setToolTip(info.title)
        if item.data(META_ROLE) != meta:
            item.setData(META_ROLE, meta)

    def title_of(self, conversation_id: str) -> str | None:
        """The title shown for a conversation (None when it is not listed, e.g. searched out)."""
        for index in range(self.list.count()):
            item = self.list.item(index)
            if item.data(ID_ROLE) == conversation_id and not is_header(conversation_id):
                return item.text()
        return None

    def current_id(self) -> str | None:
        item = self.list.currentItem()
        return str(item.data(ID_ROLE)) if item is not None else None

    def ids(self) -> list[str]:
        """The conversations listed, in their order (the groups' headers left out)."""
        keys = [str(self.list.item(i).data(ID_ROLE)) for i in range(self.list.count())]
        return [key for key in keys if not is_header(key)]

    def headers(self) -> list[str]:
        """The groups' captions, in their order (empty when the list is not grouped)."""
        items = [self.list.item(i) for i in range(self.list.count())]
        return [item.text() for item in items if is_header(item.data(ID_ROLE))]

    def select(self, conversation_id: str | None) -> None:
        self._updating = True
        try:
            self._select(conversation_id)
        finally:
            self._updating = False

    def _select(self, conversation_id: str | None) -> None:
        for index in range(self.list.count()):
            item = self.list.item(index)
            if item.data(ID_ROLE) == conversation_id:
                self.list.setCurrentItem(item)
                return
        self.list.setCurrentRow(-1)

    def _on_current(self, item: QListWidgetItem | None, _previous: object) -> None:
        if item is not None and not self._updating and not is_header(item.data(ID_ROLE)):
            self.selected.emit(str(item.data(ID_ROLE)))

    # --- rename, delete ---------------------------------------------------------------

    def start_rename(self, conversation_id: str) -> None:
        self._select(conversation_id)
        item = self.list.currentItem()
        if item is not None:
            self.list.editItem(item)

    def _on_renamed(self, item: QListWidgetItem) -> None:
        if self._updating:
            return
        title = item.text().strip()
        conversation_id = str(item.data(ID_ROLE))
        if title:
            self._store().rename(conversation_id, title)
            self.renamed.emit(conversation_id, title)
        self.refresh(select=conversation_id)

    def confirm_delete(self, conversation_id: str) -> QMessageBox:
        item = next(
            (
                self.list.item(i)
                for i in range(self.list.count())
                if self.list.item(i).data(ID_ROLE) == conversation_id
            ),
            None,
        )
        title = item.text() if item is not None else conversation_id
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            _("Supprimer la conversation ?"),
            _("« {title} » et tous ses messages seront supprimés.").format(title=title),
            QMessageBox.StandardButton.Cancel,
            self,
        )
        delete_button = box.addButton(_("Supprimer"), QMessageBox.ButtonRole.DestructiveRole)
        delete_button.setProperty("danger", True)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)

        def done(_result: int) -> None:
            if box.clickedButton() is delete_button:
                self.delete_confirmed.emit(conversation_id)
            box.deleteLater()

        box.finished.connect(done)
        box.open()  # non-blocking: the event loop (and a running turn) goes on
        return box

    def _menu(self, position: QPoint) -> None:
        item = self.list.itemAt(position)
        if item is None or is_header(item.data(ID_ROLE)):
            return
        self.menu_for(str(item.data(ID_ROLE)), bool(item.data(PINNED_ROLE))).popup(
            self.list.viewport().mapToGlobal(position)
        )

    def menu_for(self, conversation_id: str, pinned: bool) -> QMenu:
        """The conversation's menu: pin, export, rename, delete."""
        menu = QMenu(self)
        pin = _("Désépingler") if pinned else _("Épingler")
        menu.addAction(pin, lambda: self.set_pinned(conversation_id, not pinned))
        menu.addAction(
            _("Exporter…") + "\tCtrl+Shift+E", lambda: self.export_requested.emit(conversation_id)
        )
        menu.addAction(_("Renommer"), lambda: self.start_rename(conversation_id))
        menu.addAction(_("Supprimer…"), lambda: self.confirm_delete(conversation_id))
        return menu

    def set_pinned(self, conversation_id: str, pinned: bool) -> None:
        self._store().set_pinned(conversation_id, pinned)
        self.refresh(select=self.current_id())


def _is_typing(event: QKeyEvent) -> bool:
    """Text being typed (a letter, a digit, a space), not a shortcut or a navigation key."""
    shortcut = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
    text = event.text()
    return bool(text) and text.isprintable() and not event.modifiers() & shortcut
