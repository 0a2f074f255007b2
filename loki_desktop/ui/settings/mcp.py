"""The MCP page of the settings: one card per server, live status, parameters, Test, import."""

from __future__ import annotations

import asyncio
import functools
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLineEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from loki_desktop.core.i18n import _, ngettext
from loki_desktop.core.mcp import secret_values
from loki_desktop.core.mcp.config import McpConfigError, is_secret_name
from loki_desktop.core.mcp.service import ImportReport, McpService, ServerView
from loki_desktop.core.mcp.status import ServerStatus, TestResult
from loki_desktop.core.ports import SecretStoreUnavailable
from loki_desktop.ui.busy_line import BusyLine
from loki_desktop.ui.qt_helpers import OwnedTasks, button, label, set_state
from loki_desktop.ui.settings.mcp_sign_in import SignInRow
from loki_desktop.ui.settings.page import page_layout
from loki_desktop.ui.settings.sampling import sampling_picker

TOOLS_SHOWN = 12


class ServerCard(QFrame):
    """One server: on/off, status dot, tools and their cost, parameters, Test, Remove."""

    def __init__(self, view: ServerView, page: McpPage) -> None:
        super().__init__()
        self.view = view
        self.page = page
        self.server_id = view.id
        self.setProperty("card", True)
        self.fields: dict[str, QLineEdit] = {}
        self.sampling_combo: QComboBox | None = None  # set by sampling_picker
        self.flags: dict[str, QCheckBox] = {}  # the catalogue's yes/no parameters
        self.measured = view.config.measured  # cost at the last test, shown while inactive
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(8)
        layout.addLayout(self._head(view))
        self.description = label(view.description, "PageIntro", wrap=True)
        layout.addWidget(self.description)
        self.error = label("", "ErrorText", wrap=True)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.error)

        grid, rows = self._params_grid(view)
        if rows:
            layout.addLayout(grid)
        self._add_sign_in(view, layout)
        layout.addLayout(self._actions(view))
        self.result = label("", "TestResult", wrap=True)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result.hide()
        layout.addWidget(self.result)
        self.update_status(view.status)

    def _head(self, view: ServerView) -> QHBoxLayout:
        """On/off with the server's name, its tools and their cost, the status dot."""
        head = QHBoxLayout()
        head.setSpacing(10)
        self.toggle = QCheckBox(view.label)
        self.toggle.setObjectName("ServerName")
        self.toggle.setChecked(view.config.enabled)
        self.toggle.toggled.connect(self._on_toggle)
        head.addWidget(self.toggle)
        if view.custom:
            head.addWidget(label(_("PERSONNALISÉ"), "ToolCount"))
        head.addStretch(1)
        self.tools_chip = label("", "ToolCount")
        head.addWidget(self.tools_chip)
        self.dot = label("", "StatusDot")
        head.addWidget(self.dot)
        return head

    def _params_grid(self, view: ServerView) -> tuple[QGridLayout, int]:
        """The server's parameters (the catalogue's, or a custom server's own), and how many."""
        grid = QGridLayout()
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(6)
        row = 0
        for param in view.params:
            if param.target == "flag":
                box = QCheckBox(param.label)
                box.setObjectName(f"flag-{param.name}")
                box.setChecked(view.config.params.get(param.name) == "1")
                box.setToolTip(param.description)
                box.toggled.connect(functools.partial(self._save_flag, param.name))
                self.flags[param.name] = box
                grid.addWidget(box, row, 0, 1, 2)
                row += 1
                continue
            caption = param.label + (" *" if param.required else "")
            grid.addWidget(label(caption, "CardTitle"), row, 0)
            hidden = param.secret or param.name in view.secrets_set or param.name in view.masked
            value = "" if hidden else view.config.params.get(param.name, "")
            field = self._field(param.name, value, secret=hidden)
            field.setToolTip(param.description)
            grid.addWidget(field, row, 1)
            row += 1
        if view.custom:
            for name, value in view.config.params.items():
                hidden = name in view.masked  # a secret written in clear by hand: masked
                grid.addWidget(label(name, "CardMono"), row, 0)
                grid.addWidget(self._field(name, "" if hidden else value, secret=hidden), row, 1)
                row += 1
            for name in view.config.secrets:
                grid.addWidget(label(name, "CardMono"), row, 0)
                grid.addWidget(self._field(name, "", secret=True), row, 1)
                row += 1
        grid.setColumnStretch(1, 1)
        return grid, row

    def _add_sign_in(self, view: ServerView, layout: QVBoxLayout) -> None:
        # remote servers: OAuth sign-in (ui.settings.mcp_sign_in)
        self.sign_in_row: SignInRow | None = None
        if view.config.kind == "http":
            self.sign_in_row = SignInRow(self)
            layout.addWidget(self.sign_in_row)
            layout.addWidget(self.sign_in_row.form)
            self.sign_in_row.refresh()

    def _actions(self, view: ServerView) -> QHBoxLayout:
        """Test (with its progress), sampling, Remove for a custom server."""
        actions = QHBoxLayout()
        actions.setSpacing(8)
        self.test_button = button(_("Tester"))
        self.test_button.clicked.connect(self._test)
        actions.addWidget(self.test_button)
        self.testing: asyncio.Task[None] | None = None
        self.progress = BusyLine()  # while a test runs (a server may take long to answer)
        actions.addWidget(self.progress, 1)
        actions.addStretch(1)
        actions.addWidget(sampling_picker(self))
        if view.custom:
            remove = button(_("Retirer"), danger=True)
            remove.clicked.connect(lambda: self.page.remove(self.server_id))
            actions.addWidget(remove)
        return actions

    def _field(self, name: str, value: str, *, secret: bool) -> QLineEdit:
        field = QLineEdit(value)
        field.setObjectName(f"param-{name}")
        if secret or is_secret_name(name):
            field.setEchoMode(QLineEdit.EchoMode.Password)
            if name in self.view.masked:
                text = _("•••• écrit en clair dans les réglages : saisissez-le à nouveau")
            elif name in self.view.secrets_set:
                text = _("•••• enregistré dans le trousseau")
            else:
                text = _("secret : gardé dans le trousseau système")
            field.setPlaceholderText(text)
        # one way to save on this page: at once, like the on/off switch (Enter, or leaving
        # the field); the dialog's Enregistrer is for its other pages
        field.editingFinished.connect(self._save_if_changed)
        self.fields[name] = field
        return field

    # --- status -----------------------------------------------------------------------

    def update_status(self, status: ServerStatus) -> None:
        texts = {
            "connected": _("● Connecté"),
            "connecting": _("● Connexion…"),
            "error": _("● Erreur"),
            "signin": _("● Connexion requise"),
            "inactive": _("● Inactif"),
        }
        self.dot.setText(texts.get(status.state, status.state))
        set_state(self.dot, "state", status.state)
        if status.tool_count:
            # live: what its tools add to every request right now
            self.tools_chip.setText(self._cost_text(status.tool_count, status.schema_tokens or 0))
            self.tools_chip.setToolTip("\n".join(status.tools))
            self.tools_chip.show()
        elif self.measured is not None:
            tools, tokens = self.measured
            self.tools_chip.setText(
                _("{cost} (dernier test)").format(cost=self._cost_text(tools, tokens))
            )
            self.tools_chip.setToolTip(_("Mesuré au dernier test de ce serveur."))
            self.tools_chip.show()
        else:
            self.tools_chip.hide()
        self.error.setText(secret_values.mask(status.message) if status.state == "error" else "")
        self.error.setVisible(status.state == "error" and bool(status.message))
        if self.sign_in_row is not None:
            self.sign_in_row.update_status(status)

    def _cost_text(self, tools: int, tokens: int) -> str:
        count = ngettext("{n} outil", "{n} outils", tools).format(n=tools)
        return _("{tools} · ≈ {tokens} jetons de contexte").format(tools=count, tokens=tokens)

    def show_message(self, text: str, *, error: bool) -> None:
        # a sentence may quote what was typed or printed
        self.result.setText(secret_values.mask(text))
        set_state(self.result, "state", "error" if error else "ok")
        self.result.show()

    # --- actions ----------------------------------------------------------------------

    def _on_toggle(self, checked: bool) -> None:
        self.page.set_enabled(self, checked)

    def _save_if_changed(self) -> None:
        if any(field.isModified() for field in self.fields.values()):
            self.save_params()

    def save_params(self) -> None:
        values: dict[str, str | None] = {}
        for name, field in self.fields.items():
            field.setModified(False)
            text = field.text().strip()
            if field.echoMode() == QLineEdit.EchoMode.Password and not text:
                continue  # an empty secret field keeps the stored secret
            values[name] = text or None
        for name, box in self.flags.items():
            values[name] = "1" if box.isChecked() else None

        def saved(_result: object) -> None:
            for field in self.fields.values():
                if field.echoMode() == QLineEdit.EchoMode.Password and field.text():
                    field.clear()
                    field.setPlaceholderText(_("•••• enregistré dans le trousseau"))
            self.show_message(_("Paramètres enregistrés."), error=False)

        service, server_id = self.page.service, self.server_id
        self.page.run(lambda: service.set_params(server_id, values), self, then=saved)

    def _save_flag(self, name: str, checked: bool) -> None:
        """A yes/no parameter is saved as it is ticked (a running server restarts with it)."""
        service, server_id = self.page.service, self.server_id
        value = "1" if checked else None
        self.page.run(lambda: service.set_params(server_id, {name: value}), self)

    def _test(self) -> None:
        if self.testing is not None and not self.testing.done():
            self.testing.cancel()  # the button says "Arrêter le test" meanwhile
            return
        self.test_button.setText(_("Arrêter le test"))
        self.progress.start()
        self.show_message(_("Test en cours : démarrage du serveur…"), error=False)
        self.testing = self.page.tasks.spawn(self._run_test())

    async def _run_test(self) -> None:
        page, server_id = self.page, self.server_id
        result: TestResult | None = None
        try:
            result = await page.service.test(server_id)
        except McpConfigError as exc:
            result = TestResult(False, str(exc))
        except asyncio.CancelledError:
            if page.closing:
                raise  # the dialog closes: no card to tell
        finally:
            self.testing = None
            # the cards may have been rebuilt meanwhile (reload): this one may be deleted
            card = page.cards.get(server_id)
            if isValid(self):
                self.end_test()
            if card is not None and card is not self:
                card.end_test()
        if card is None:
            return
        if result is None:
            card.show_message(_("Test arrêté."), error=False)
        else:
            card.show_test_result(result)

    def end_test(self) -> None:
        self.progress.stop()
        self.test_button.setText(_("Tester"))
        self.test_button.setEnabled(True)

    def show_test_result(self, result: TestResult) -> None:
        if not result.ok:
            self.show_message(_("Échec : {message}").format(message=result.message), error=True)
            return
        names = ", ".join(result.tools[:TOOLS_SHOWN])
        if len(result.tools) > TOOLS_SHOWN:
            names += ", …"
        text = _("Connecté en {s} s : {n} outils trouvés — {names}").format(
            s=f"{result.seconds:.1f}".replace(".", ","), n=len(result.tools), names=names
        )
        if len(result.exposed) != len(result.tools):
            text += "\n" + _("{n} sont proposés au modèle.").format(n=len(result.exposed))
        self.show_message(text, error=False)
        self.measured = (len(result.exposed), result.schema_tokens)  # the service recorded it
        self.update_status(self.page.service.manager.status(self.server_id))


class McpPage(QWidget):
    """Every server as a card; add a custom one or import a Claude-style JSON file."""

    def __init__(self, service: McpService, on_enabled: Callable[[], None]) -> None:
        super().__init__()
        self.service = service
        self.on_enabled = on_enabled
        self.closing = False
        self.tasks = OwnedTasks()
        self.cards: dict[str, ServerCard] = {}
        self.file_dialog: QFileDialog | None = None
        layout = page_layout(
            self,
            _("Serveurs MCP"),
            _(
                "Des outils professionnels pour le modèle : navigateur, documentation, "
                "lecture du Web… Chaque serveur est éteint tant que vous ne l'allumez pas. "
                "Les changements s'appliquent tout de suite ; les secrets vont dans le "
                "trousseau du système, jamais dans un fichier."
            ),
        )
        layout.addLayout(self._bar())
        self._build_add_form()
        layout.addWidget(self.add_form)
        self._add_notes(layout)
        scroll = self._server_list()
        layout.addWidget(scroll, 1)
        self._editable = (self.add_button, self.import_button, self.add_form, scroll)
        self.reload()
        self._unsubscribe = service.manager.subscribe(self._on_status)

    def _bar(self) -> QHBoxLayout:
        bar = QHBoxLayout()
        self.add_button = button(_("+  Ajouter un serveur"))
        self.add_button.clicked.connect(self._toggle_add_form)
        bar.addWidget(self.add_button)
        self.import_button = button(_("Importer un fichier JSON…"))
        self.import_button.setToolTip(
            _('Un fichier au format de Claude Desktop : {"mcpServers": {…}}')
        )
        self.import_button.clicked.connect(self.open_import)
        bar.addWidget(self.import_button)
        bar.addStretch(1)
        return bar

    def _build_add_form(self) -> None:
        """The form that adds a custom server (a command or a URL), hidden until asked for."""
        self.add_form = QFrame()
        self.add_form.setProperty("card", True)
        form = QGridLayout(self.add_form)
        form.setContentsMargins(14, 12, 14, 12)
        form.addWidget(label(_("Nom"), "CardTitle"), 0, 0)
        self.new_name = QLineEdit()
        self.new_name.setPlaceholderText(_("par exemple : mes-outils"))
        form.addWidget(self.new_name, 0, 1)
        form.addWidget(label(_("Commande ou URL"), "CardTitle"), 1, 0)
        self.new_target = QLineEdit()
        self.new_target.setPlaceholderText(
            _("npx -y mon-serveur-mcp   ou   https://exemple.org/mcp")
        )
        form.addWidget(self.new_target, 1, 1)
        add_row = QHBoxLayout()
        add_row.addStretch(1)
        confirm = button(_("Ajouter"), primary=True)
        confirm.clicked.connect(self.add_from_form)
        add_row.addWidget(confirm)
        form.addLayout(add_row, 2, 1)
        self.add_error = label("", "CardDetail", wrap=True)
        form.addWidget(self.add_error, 3, 1)
        form.setColumnStretch(1, 1)
        self.add_form.hide()

    def _add_notes(self, layout: QVBoxLayout) -> None:
        """The import report and the saving note, hidden until there is something to say."""
        self.report = label("", "TestResult", wrap=True)
        self.report.hide()
        layout.addWidget(self.report)
        # shown while an edit runs: the system keyring may be waiting for its unlock prompt
        self.busy = label(
            _("Enregistrement… (le trousseau du système peut demander d'être déverrouillé)"),
            "CardDetail",
            wrap=True,
        )
        self.busy.hide()
        layout.addWidget(self.busy)

    def _server_list(self) -> QScrollArea:
        """The cards' scrolling column (filled by reload)."""
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        holder = QWidget()
        holder.setObjectName("ChatArea")
        self.list_layout = QVBoxLayout(holder)
        self.list_layout.setContentsMargins(0, 0, 8, 0)
        self.list_layout.setSpacing(12)
        self.list_layout.addStretch(1)
        scroll.setWidget(holder)
        return scroll

    def close_page(self) -> None:
        self.closing = True
        self._unsubscribe()
        self.tasks.cancel_soon()

    # --- cards ------------------------------------------------------------------------

    def reload(self) -> None:
        for card in self.cards.values():
            self.list_layout.removeWidget(card)
            card.deleteLater()
        self.cards.clear()
        # servers that are on come first; the order is kept while the page is open
        views = sorted(
            self.service.servers(), key=lambda v: (not v.config.enabled, v.label.lower())
        )
        for view in views:
            card = ServerCard(view, self)
            self.cards[view.id] = card
            self.list_layout.insertWidget(self.list_layout.count() - 1, card)

    def _on_status(self, status: ServerStatus) -> None:
        card = self.cards.get(status.id)
        if card is not None:
            card.update_status(status)

    def run(
        self,
        action: Callable[[], Any],
        card: ServerCard | None = None,
        *,
        then: Callable[[Any], None] | None = None,
        failed: Callable[[str], None] | None = None,
    ) -> asyncio.Task[bool]:
        """Run a service edit off the GUI thread (it may write to the keyring, which can wait
        on an unlock prompt), the page busy meanwhile. Then `then(result)`; or its error (one
        French sentence) goes to `failed`, else where it happened. The task says which."""
        return self.tasks.spawn(self._run(action, card, then, failed))

    async def _run(
        self,
        action: Callable[[], Any],
        card: ServerCard | None,
        then: Callable[[Any], None] | None,
        failed: Callable[[str], None] | None,
    ) -> bool:
        self.set_busy(True)
        try:
            result = await self.service.edit(action)
        except (McpConfigError, SecretStoreUnavailable, ValueError) as exc:
            if failed is not None:
                failed(str(exc))
            elif card is not None and self.cards.get(card.server_id) is card:
                card.show_message(str(exc), error=True)
            else:
                self.show_report(str(exc), error=True)
            return False
        finally:
            self.set_busy(False)
        if then is not None:
            then(result)
        return True

    def set_busy(self, busy: bool) -> None:
        for widget in self._editable:
            widget.setEnabled(not busy)
        self.busy.setVisible(busy)

    def set_enabled(self, card: ServerCard, enabled: bool) -> asyncio.Task[bool]:
        service, server_id = self.service, card.server_id
        action = service.enable if enabled else service.disable

        def revert(message: str) -> None:
            card.show_message(message, error=True)
            card.toggle.blockSignals(True)
            card.toggle.setChecked(not enabled)
            card.toggle.blockSignals(False)

        def done(_result: object) -> None:
            if enabled:
                problem = service.problem(server_id)
                if problem:
                    card.show_message(problem, error=True)
                self.on_enabled()

        return self.run(lambda: action(server_id), card, then=done, failed=revert)

    def remove(self, server_id: str) -> asyncio.Task[bool]:
        service = self.service
        return self.run(lambda: service.remove(server_id), then=lambda _r: self.reload())

    # --- adding and importing --------------------------------------------------------------

    def _toggle_add_form(self) -> None:
        self.add_form.setVisible(not self.add_form.isVisible())
        if self.add_form.isVisible():
            self.new_name.setFocus()

    def add_from_form(self) -> asyncio.Task[bool]:
        name = self.new_name.text().strip()
        target = self.new_target.text().strip()
        service = self.service

        def add() -> object:
            if target.startswith(("http://", "https://")):
                return service.add_http(name, target, label=name)
            return service.add_stdio(name, shlex.split(target), label=name)

        def added(_result: object) -> None:
            self.add_error.setText("")
            self.new_name.clear()
            self.new_target.clear()
            self.add_form.hide()
            self.reload()
            self.show_report(_("Serveur « {name} » ajouté (éteint).").format(name=name))

        # the error may quote the command typed, secrets and all: masked like every message
        return self.run(
            add, then=added, failed=lambda text: self.add_error.setText(secret_values.mask(text))
        )

    def open_import(self) -> QFileDialog:
        dialog = QFileDialog(self, _("Importer des serveurs MCP"))
        dialog.setNameFilter(_("Fichiers JSON (*.json)"))
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(lambda path: self.import_file(Path(path)))
        dialog.finished.connect(dialog.deleteLater)
        self.file_dialog = dialog
        dialog.open()
        return dialog

    def import_file(self, path: Path) -> asyncio.Task[bool]:
        service = self.service
        return self.run(lambda: service.import_file(path), then=self._imported)

    def _imported(self, report: ImportReport) -> None:
        lines = [
            ngettext(
                "{n} serveur importé : {names}.",
                "{n} serveurs importés : {names}.",
                len(report.added),
            ).format(
                n=len(report.added), names=", ".join(c.display_name for c in report.added) or "—"
            )
        ]
        if report.secrets_stored:
            lines.append(
                ngettext(
                    "{n} secret rangé dans le trousseau.",
                    "{n} secrets rangés dans le trousseau.",
                    report.secrets_stored,
                ).format(n=report.secrets_stored)
            )
        lines += report.skipped
        self.show_report("\n".join(lines), error=not report.added)
        self.reload()

    def show_report(self, text: str, *, error: bool = False) -> None:
        self.report.setText(secret_values.mask(text))
        set_state(self.report, "state", "error" if error else "ok")
        self.report.show()
