"""The composer's MCP lists: "/" offers the servers' prompts, "@" their resources.

Typing "/" in an empty composer lists the prompts of the enabled servers (started first if
they are not yet, within the usual bound), each with its arguments; choosing one asks for
the arguments (the same form as a server's elicitation) and puts the rendered prompt in the
composer, to read and send. Typing "@" (at the start or after a space) lists their
resources; the chosen one is read and attached: its text joins the message as context when
it is sent (a chip shows it until then), its images join the message's images (vision
models only, as the attach button).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPoint
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QHBoxLayout, QMenu, QPushButton, QVBoxLayout, QWidget

from loki_desktop.core.i18n import _
from loki_desktop.core.mcp.elicitation import ElicitationForm
from loki_desktop.ui.mcp.forms import ElicitationDialog
from loki_desktop.ui.mcp.host import run_dialog
from loki_desktop.ui.qt_helpers import OwnedTasks

if TYPE_CHECKING:
    from loki_desktop.core.mcp.manager import McpManager
    from loki_desktop.core.mcp.offers import McpPrompt, McpResource, ResourceContent
    from loki_desktop.ui.chat.composer import Composer
    from loki_desktop.ui.runtime import Runtime


class ContextChips(QWidget):
    """The resources attached to the message being written; a click removes one."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("ContextChips")
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(0, 0, 0, 0)
        self.row.setSpacing(6)
        self.row.addStretch(1)
        self.items: list[tuple[ResourceContent, QPushButton]] = []
        self.hide()

    def add(self, content: ResourceContent) -> None:
        chip = QPushButton(f"@ {content.resource.label}  ✕")
        chip.setObjectName("ContextChip")
        chip.setToolTip(
            _("{uri} — joint au message comme contexte ; cliquez pour le retirer").format(
                uri=content.resource.uri
            )
        )
        chip.clicked.connect(lambda: self.remove(content))
        self.row.insertWidget(self.row.count() - 1, chip)
        self.items.append((content, chip))
        self.show()

    def remove(self, content: ResourceContent) -> None:
        for held, chip in list(self.items):
            if held is content:
                self.items.remove((held, chip))
                chip.deleteLater()
        self.setVisible(bool(self.items))

    def take(self) -> list[ResourceContent]:
        taken = [content for content, _chip in self.items]
        for content in taken:
            self.remove(content)
        return taken


class McpComposer(QObject):
    """Watches the composer's text for "/" and "@"; `menu` and `dialog` are what is open."""

    def __init__(self, composer: Composer, runtime: Runtime) -> None:
        super().__init__(composer)
        self.composer = composer
        self.runtime = runtime
        self.tasks = OwnedTasks()
        self.menu: QMenu | None = None
        self.dialog: ElicitationDialog | None = None
        self.chips = ContextChips()
        self._length = 0
        layout = composer.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(1, self.chips)  # above the text box, below the images
        composer.before_send = self.with_context
        composer.input.textChanged.connect(self._on_text)

    @property
    def manager(self) -> McpManager:
        return self.runtime.mcp.manager

    # --- typing ---------------------------------------------------------------------------

    def _on_text(self) -> None:
        text = self.composer.text()
        grew = len(text) > self._length
        self._length = len(text)
        if not grew or not self._servers_on():
            return
        position = self.composer.input.textCursor().position()
        if text == "/":
            self.tasks.spawn(self.open_prompts())
        elif (
            position
            and text[position - 1 : position] == "@"
            and (position == 1 or text[position - 2].isspace())
        ):
            self.tasks.spawn(self.open_resources(position - 1))

    def _servers_on(self) -> bool:
        """Whether any server is on (none: "/" and "@" are plain text, no list opens)."""
        return bool(self.manager.enabled_ids)

    def _popup(self, menu: QMenu) -> None:
        if self.menu is not None:
            self.menu.close()
        self.menu = menu
        menu.aboutToHide.connect(menu.deleteLater)
        menu.popup(self.composer.mapToGlobal(QPoint(10, 0)))

    # --- prompts ------------------------------------------------------------------------

    async def open_prompts(self) -> QMenu:
        await self.manager.warm()
        menu = QMenu(self.composer)
        menu.setObjectName("PromptMenu")
        prompts = self.manager.prompts()
        if not prompts:
            menu.addAction(_("Aucune invite : activez un serveur MCP qui en propose")).setEnabled(
                False
            )
        for prompt in prompts:
            action = menu.addAction(_prompt_line(prompt))
            action.setToolTip(prompt.description)
            action.setData(prompt.command)
            action.triggered.connect(
                lambda _c=False, p=prompt: self.tasks.spawn(self.use_prompt(p))
            )
        menu.setToolTipsVisible(True)
        self._popup(menu)
        return menu

    async def use_prompt(self, prompt: McpPrompt) -> None:
        arguments: dict[str, str] = {}
        if prompt.arguments:
            form = ElicitationForm.from_schema(prompt.form_schema())
            title = _("Invite « {name} » de « {server} »").format(
                name=prompt.title or prompt.name, server=prompt.server_label
            )
            dialog = ElicitationDialog(
                form,
                title=title,
                message=prompt.description,
                accept_text=_("Insérer"),
                decline=False,
                parent=self.composer.window(),
            )
            self.dialog = dialog
            try:
                await run_dialog(dialog)
            finally:
                self.dialog = None
            if dialog.answer.action != "accept":
                return
            arguments = {k: str(v) for k, v in (dialog.answer.content or {}).items()}
        from loki_desktop.core.mcp.connection import McpOfferError

        try:
            rendered = await self.manager.get_prompt(prompt, arguments)
        except McpOfferError as exc:
            self.composer.attachments.show_problem(str(exc))
            return
        self.composer.set_text(rendered.text)
        self.composer.input.moveCursor(QTextCursor.MoveOperation.End)
        self.composer.input.setFocus()
        self._attach_images(rendered.images)

    # --- resources ------------------------------------------------------------------------

    async def open_resources(self, at: int) -> QMenu:
        await self.manager.warm()
        menu = QMenu(self.composer)
        menu.setObjectName("ResourceMenu")
        resources = self.manager.resources()
        if not resources:
            menu.addAction(
                _("Aucune ressource : activez un serveur MCP qui en propose")
            ).setEnabled(False)
        for resource in resources:
            action = menu.addAction(
                _("{label} — {uri} ({server})").format(
                    label=resource.label, uri=resource.uri, server=resource.server_label
                )
            )
            action.setToolTip(resource.description)
            action.setData(resource.uri)
            action.triggered.connect(
                lambda _c=False, r=resource: self.tasks.spawn(self.attach(r, at))
            )
        menu.setToolTipsVisible(True)
        self._popup(menu)
        return menu

    async def attach(self, resource: McpResource, at: int = -1) -> None:
        from loki_desktop.core.mcp.connection import McpOfferError

        try:
            content = await self.manager.read_resource(resource)
        except McpOfferError as exc:
            self.composer.attachments.show_problem(str(exc))
            return
        text = self.composer.text()
        if 0 <= at < len(text) and text[at] == "@":  # the "@" typed to open the list goes
            cursor = self.composer.input.textCursor()
            cursor.setPosition(at)
            cursor.setPosition(at + 1, QTextCursor.MoveMode.KeepAnchor)
            cursor.removeSelectedText()
        if content.text.strip():
            self.chips.add(content)
        self._attach_images(content.images)

    def with_context(self, text: str) -> str:
        """The message as sent: the attached resources' text after what the person wrote."""
        blocks = [content.as_context() for content in self.chips.take()]
        return "\n\n".join([text, *blocks]) if blocks else text

    def _attach_images(self, images: tuple[object, ...]) -> None:
        if not images:
            return
        refusal = self.composer.attachments.refusal
        if refusal:
            self.composer.attachments.show_problem(refusal)
            return
        self.composer.attachments.restore(images)  # type: ignore[arg-type]


def _prompt_line(prompt: McpPrompt) -> str:
    arguments = ", ".join(arg.name + ("*" if arg.required else "") for arg in prompt.arguments)
    title = f" — {prompt.title}" if prompt.title else ""
    shown = f"/{prompt.command}{title}"
    return f"{shown}  ({arguments})" if arguments else shown
