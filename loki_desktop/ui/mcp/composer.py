"""The composer's lists: "/" offers the person's prompts and the servers', "@" their resources.

Typing "/" in an empty composer lists the person's own prompts (core.prompt_library), then
the prompts of the enabled servers (started first if they are not yet, within the usual
bound) under each server's name, each with its arguments; choosing one asks for
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
from loki_desktop.core.prompt_library import UserPrompt, list_prompts, prompts_folder
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
        if not grew:
            return
        if text == "/" and (self._servers_on() or self._own_prompts()[0]):
            self.tasks.spawn(self.open_prompts())
            return
        if not self._servers_on():
            return
        position = self.composer.input.textCursor().position()
        if (
            position
            and text[position - 1 : position] == "@"
            and (position == 1 or text[position - 2].isspace())
        ):
            self.tasks.spawn(self.open_resources(position - 1))

    def _own_prompts(self) -> tuple[list[UserPrompt], list[str]]:
        """The person's prompts (read again each time: they are plain files), and why some
        cannot be used."""
        return list_prompts(prompts_folder(self.runtime.services.data_home))

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
        own, problems = self._own_prompts()
        if self._servers_on():
            await self.manager.warm()
        menu = QMenu(self.composer)
        menu.setObjectName("PromptMenu")
        prompts = self.manager.prompts() if self._servers_on() else []
        if own or problems:
            menu.addSection(_("Mes prompts"))
        for mine in own:
            action = menu.addAction(_own_line(mine))
            action.setData(f"mine:{mine.name}")
            action.triggered.connect(lambda _c=False, p=mine: self.tasks.spawn(self.use_own(p)))
        for problem in problems:
            menu.addAction(problem).setEnabled(False)
        if not prompts and not own:
            menu.addAction(_("Aucune invite : activez un serveur MCP qui en propose")).setEnabled(
                False
            )
        server = None
        for prompt in prompts:
            if prompt.server_label != server:  # each server's under its name
                server = prompt.server_label
                menu.addSection(server)
            action = menu.addAction(_prompt_line(prompt))
            action.setToolTip(prompt.description)
            action.setData(prompt.command)
            action.triggered.connect(
                lambda _c=False, p=prompt: self.tasks.spawn(self.use_prompt(p))
            )
        menu.setToolTipsVisible(True)
        self._popup(menu)
        return menu

    async def use_own(self, prompt: UserPrompt) -> None:
        """One of the person's prompts: its variables asked for, its text in the composer."""
        values: dict[str, str] = {}
        if prompt.variables:
            schema = {
                "type": "object",
                "properties": {v: {"type": "string", "title": v} for v in prompt.variables},
                "required": list(prompt.variables),
            }
            title = _("Prompt « {name} »").format(name=prompt.name)
            asked = await self._ask_values(ElicitationForm.from_schema(schema), title, "")
            if asked is None:
                return
            values = asked
        self.composer.set_text(prompt.fill(values))
        self.composer.input.moveCursor(QTextCursor.MoveOperation.End)
        self.composer.input.setFocus()

    async def _ask_values(
        self, form: ElicitationForm, title: str, message: str
    ) -> dict[str, str] | None:
        """A prompt's values asked in one form (None: the person cancelled)."""
        dialog = ElicitationDialog(
            form,
            title=title,
            message=message,
            accept_text=_("Insérer"),
            decline=False,
            parent=self.composer.window(),
        )
        self.dialog = dialog  # the tests answer it
        try:
            await run_dialog(dialog)
        finally:
            self.dialog = None
        if dialog.answer.action != "accept":
            return None
        return {k: str(v) for k, v in (dialog.answer.content or {}).items()}

    async def use_prompt(self, prompt: McpPrompt) -> None:
        arguments: dict[str, str] = {}
        if prompt.arguments:
            form = ElicitationForm.from_schema(prompt.form_schema())
            title = _("Invite « {name} » de « {server} »").format(
                name=prompt.title or prompt.name, server=prompt.server_label
            )
            asked = await self._ask_values(form, title, prompt.description)
            if asked is None:
                return
            arguments = asked
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


def _own_line(prompt: UserPrompt) -> str:
    variables = ", ".join(prompt.variables)
    shown = f"/{prompt.name}"
    return f"{shown}  ({variables})" if variables else shown


def _prompt_line(prompt: McpPrompt) -> str:
    arguments = ", ".join(arg.name + ("*" if arg.required else "") for arg in prompt.arguments)
    title = f" — {prompt.title}" if prompt.title else ""
    shown = f"/{prompt.command}{title}"
    return f"{shown}  ({arguments})" if arguments else shown
