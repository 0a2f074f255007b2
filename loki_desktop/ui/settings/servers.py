"""Réglages → Général: the model servers (Ollama or OpenAI-compatible), added, removed, tested.

The list shows every server; the fields below edit the selected one. An API key typed here goes
to the keyring when the dialog is saved (never to the settings file); an empty key field keeps
the stored key, and "Oublier la clé" removes it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QVBoxLayout,
    QWidget,
)

from loki_desktop.core.i18n import _, ngettext
from loki_desktop.core.llm.probe import ProbeResult
from loki_desktop.core.model_servers import (
    DEFAULT_OLLAMA_NAME,
    DEFAULT_OPENAI_URL,
    ModelServer,
    ServerKind,
    SystemPlacement,
    check_url,
)
from loki_desktop.core.ports import BackendError, ModelInfo
from loki_desktop.core.settings import Settings, resolve_host
from loki_desktop.ui.qt_helpers import (
    OwnedTasks,
    button,
    label,
    narrow_combo,
    set_state,
    wrapping_form,
)

Probe = Callable[[ModelServer, str | None], Awaitable[list[ModelInfo]]]
# checks with one short request per model whether its models follow a system instruction
InstructionsProbe = Callable[[ModelServer, str | None], Awaitable[list[ProbeResult]]]


def ollama_default() -> str:
    """The address an Ollama server left empty really gets ($OLLAMA_HOST when set): what its
    field shows, rather than a fixed 127.0.0.1:11434 Loki may not be using."""
    return resolve_host(None, Settings())


@dataclass
class ServerDraft:
    """One server as edited: `key` None keeps the stored key, "" forgets it."""

    kind: ServerKind
    name: str
    url: str
    has_key: bool = False
    key: str | None = None
    context_lengths: dict[str, int] = field(default_factory=dict)
    system: SystemPlacement = "system"  # how Loki's instructions reach an OpenAI server's model

    def server(self) -> ModelServer:
        url = self.url.strip()
        if self.kind == "ollama":
            url = resolve_host(url or None, Settings())
        return ModelServer(
            self.kind,
            self.name.strip(),
            url.rstrip("/"),
            dict(self.context_lengths),
            has_key=bool(self.key) or (self.has_key and self.key is None),
            system=self.system if self.kind == "openai" else "system",
        )


class ServersEditor(QWidget):
    """The list of servers and the fields of the selected one."""

    tested = Signal(list)  # the model names a successful connection test found

    def __init__(
        self,
        drafts: list[ServerDraft],
        tasks: OwnedTasks,
        probe: Probe,
        instructions: InstructionsProbe | None = None,
    ) -> None:
        super().__init__()
        self.drafts = drafts
        self.tasks = tasks
        self.probe = probe
        self.instructions = instructions
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        self.list = QListWidget()
        self.list.setObjectName("ModelServers")
        self.list.setMaximumHeight(110)
        layout.addWidget(self.list)
        row = QHBoxLayout()
        self.add_button = button(_("Ajouter un serveur"))
        self.remove_button = button(_("Retirer"))
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        row.addStretch(1)
        layout.addLayout(row)
        form = wrapping_form()
        form.setSpacing(8)
        self.name = QLineEdit()
        form.addRow(_("Nom"), self.name)
        self.kind = narrow_combo(QComboBox())
        self.kind.addItem(_("Ollama"), "ollama")
        self.kind.addItem(_("Compatible OpenAI (vLLM, llama.cpp, LM Studio…)"), "openai")
        form.addRow(_("Protocole"), self.kind)
        host_row = QHBoxLayout()
        self.host = QLineEdit()
        host_row.addWidget(self.host, 1)
        self.test_button = button(_("Tester la connexion"))
        host_row.addWidget(self.test_button)
        form.addRow(_("Adresse"), host_row)
        key_row = QHBoxLayout()
        self.key = QLineEdit()
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        key_row.addWidget(self.key, 1)
        self.forget_key = button(_("Oublier la clé"))
        key_row.addWidget(self.forget_key)
        form.addRow(_("Clé d'API"), key_row)
        form.addRow(_("Consignes"), self._placement_row())
        layout.addLayout(form)
        self.test_result = label("", "TestResult", wrap=True)
        self.test_result.hide()
        layout.addWidget(self.test_result)
        self._loading = False
        self._connect()
        self._refill(0)

    def _placement_row(self) -> QHBoxLayout:
        """Where Loki's instructions go for an OpenAI-compatible server (whose template
        cannot be seen), and the button that checks whether its models follow them."""
        row = QHBoxLayout()
        self.placement = narrow_combo(QComboBox(), 14)
        self.placement.setObjectName("SystemPlacement")
        self.placement.addItem(_("en message système"), "system")
        self.placement.addItem(_("dans le premier message"), "folded")
        self.placement.setToolTip(
            _(
                "Certains formats de conversation (« gemma » de llama.cpp) laissent le "
                "message système de côté : Loki met alors ses consignes dans le premier message."
            )
        )
        row.addWidget(self.placement, 1)
        self.check_button = button(_("Vérifier les consignes"))
        self.check_button.setVisible(self.instructions is not None)
        row.addWidget(self.check_button)
        return row

    def _connect(self) -> None:
        self.list.currentRowChanged.connect(self._show)
        self.add_button.clicked.connect(self.add_server)
        self.remove_button.clicked.connect(self.remove_server)
        self.test_button.clicked.connect(self.test_connection)
        self.check_button.clicked.connect(self.check_instructions)
        self.placement.currentIndexChanged.connect(self._edited)
        self.forget_key.clicked.connect(self._forget_key)
        for edit in (self.name, self.host, self.key):
            edit.textChanged.connect(self._edited)  # typed or set (tests, paste)
        self.kind.currentIndexChanged.connect(self._edited)

    # --- the list ---------------------------------------------------------------------

    def _refill(self, row: int) -> None:
        self.list.clear()
        for draft in self.drafts:
            self.list.addItem(self._line(draft))
        self.remove_button.setEnabled(len(self.drafts) > 1)  # one server is always there
        self.list.setCurrentRow(min(row, len(self.drafts) - 1))

    def _line(self, draft: ServerDraft) -> str:
        kind = "Ollama" if draft.kind == "ollama" else "OpenAI"
        url = draft.url or (ollama_default() if draft.kind == "ollama" else "")
        return f"{draft.name or '?'} — {kind} — {url}"

    def add_server(self) -> None:
        names = {d.name for d in self.drafts}
        number = 2
        while (name := _("Serveur {n}").format(n=number)) in names:
            number += 1
        self.drafts.append(ServerDraft("openai", name, DEFAULT_OPENAI_URL))
        self._refill(len(self.drafts) - 1)
        self.name.setFocus()

    def remove_server(self) -> None:
        row = self.list.currentRow()
        if len(self.drafts) > 1 and 0 <= row < len(self.drafts):
            del self.drafts[row]
            self._refill(row)

    # --- the selected server ----------------------------------------------------------

    @property
    def current(self) -> ServerDraft | None:
        row = self.list.currentRow()
        return self.drafts[row] if 0 <= row < len(self.drafts) else None

    def _show(self, _row: int) -> None:
        draft = self.current
        if draft is None:
            return
        self._loading = True
        try:
            self.name.setText(draft.name)
            self.kind.setCurrentIndex(self.kind.findData(draft.kind))
            self.host.setText(draft.url)
            self.host.setPlaceholderText(ollama_default() if draft.kind == "ollama" else "")
            self.key.setText(draft.key or "")
            self.key.setPlaceholderText(
                _("enregistrée dans le trousseau") if draft.has_key else _("aucune")
            )
            self.forget_key.setEnabled(draft.has_key or bool(draft.key))
            self.placement.setCurrentIndex(self.placement.findData(draft.system))
            self._placement_enabled(draft)
            self.test_result.hide()
        finally:
            self._loading = False

    def _edited(self, *_args: object) -> None:
        draft = self.current
        if self._loading or draft is None:
            return
        draft.name = self.name.text()
        draft.kind = "openai" if self.kind.currentData() == "openai" else "ollama"
        draft.url = self.host.text()
        draft.key = self.key.text() or (None if draft.key is None else "")
        draft.system = "folded" if self.placement.currentData() == "folded" else "system"
        self._placement_enabled(draft)
        self.host.setPlaceholderText(ollama_default() if draft.kind == "ollama" else "")
        self.list.currentItem().setText(self._line(draft))

    def _placement_enabled(self, draft: ServerDraft) -> None:
        """Ollama shows its templates: Loki reads them there and needs no setting."""
        openai = draft.kind == "openai"
        self.placement.setEnabled(openai)
        self.check_button.setEnabled(openai)

    def _forget_key(self) -> None:
        draft = self.current
        if draft is not None:
            draft.key, draft.has_key = "", False
            self._show(self.list.currentRow())

    # --- checks -----------------------------------------------------------------------

    def problem(self) -> str | None:
        """Why the servers cannot be saved as they are (a sentence), or None."""
        names = [d.name.strip() for d in self.drafts]
        if any(not name for name in names):
            return _("Chaque serveur a besoin d'un nom.")
        if len(set(names)) != len(names):
            return _("Deux serveurs portent le même nom.")
        for draft in self.drafts:
            url = draft.url.strip()
            if (url or draft.kind == "openai") and (reason := check_url(url)):
                return reason
        return None

    def test_connection(self) -> None:
        draft = self.current
        if draft is None:
            return
        self.test_button.setEnabled(False)
        self.test_result.setText(_("Connexion…"))
        set_state(self.test_result, "state", "ok")
        self.test_result.show()
        self.tasks.spawn(self._test(dataclasses.replace(draft)))

    async def _test(self, draft: ServerDraft) -> None:
        server = draft.server()
        try:
            if reason := check_url(server.url):
                raise BackendError(reason)
            models = await self.probe(server, draft.key or None)
        except BackendError as exc:
            self.test_result.setText(str(exc))
            set_state(self.test_result, "state", "error")
            return
        finally:
            self.test_button.setEnabled(True)
        names = [m.name for m in models]
        if names:
            self.test_result.setText(
                ngettext(
                    "Connecté à {host} : {n} modèle — {names}",
                    "Connecté à {host} : {n} modèles — {names}",
                    len(names),
                ).format(host=server.url, n=len(names), names=", ".join(names))
            )
        else:
            self.test_result.setText(
                _("Connecté à {host}, mais aucun modèle n'est installé.").format(host=server.url)
            )
        set_state(self.test_result, "state", "ok")
        self.tested.emit(names)

    def check_instructions(self) -> None:
        draft = self.current
        if draft is None or self.instructions is None:
            return
        self.check_button.setEnabled(False)
        self.test_result.setText(_("Vérification des consignes…"))
        set_state(self.test_result, "state", "ok")
        self.test_result.show()
        self.tasks.spawn(self._check(dataclasses.replace(draft)))

    async def _check(self, draft: ServerDraft) -> None:
        assert self.instructions is not None
        server = draft.server()
        try:
            if reason := check_url(server.url):
                raise BackendError(reason)
            results = await self.instructions(server, draft.key or None)
        except BackendError as exc:
            self.test_result.setText(str(exc))
            set_state(self.test_result, "state", "error")
            return
        finally:
            self.check_button.setEnabled(True)
        if not results:
            self.test_result.setText(
                _("Aucun modèle à vérifier sur {host}.").format(host=server.url)
            )
            set_state(self.test_result, "state", "error")
            return
        self.test_result.setText("\n".join(result.sentence() for result in results))
        follows = all(result.verdict == "follows" for result in results)
        set_state(self.test_result, "state", "ok" if follows else "error")


def drafts_of(listed: list[ModelServer], host_setting: str, migrated: bool) -> list[ServerDraft]:
    """The drafts of the settings' servers; the migrated single Ollama shows the raw `host`
    setting (empty: the default, as before)."""
    if migrated:
        return [ServerDraft("ollama", DEFAULT_OLLAMA_NAME, host_setting)]
    return [
        ServerDraft(s.kind, s.name, s.url, s.has_key, None, dict(s.context_lengths), s.system)
        for s in listed
    ]
