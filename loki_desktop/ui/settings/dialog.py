"""The settings dialog: General (Ollama, model, rounds, look), Models, MCP servers, Intelligence."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from PySide6.QtCore import QSize, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QListWidget,
    QScrollArea,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from loki_desktop.core.i18n import _, typeset
from loki_desktop.core.model_servers import save_servers, servers
from loki_desktop.core.ports import ModelProfile
from loki_desktop.core.prompt_library import prompts_folder
from loki_desktop.core.settings import CHECKPOINTS_BUDGET_RANGE, Settings
from loki_desktop.core.skills.loader import load_skills
from loki_desktop.core.skills.model import Skill
from loki_desktop.ui.qt_helpers import (
    OwnedTasks,
    button,
    first_size,
    label,
    narrow_combo,
    scroll_page,
    set_state,
    wrapping_form,
)
from loki_desktop.ui.runtime import Runtime
from loki_desktop.ui.settings.answer_caps import AnswerCapsRows
from loki_desktop.ui.settings.evaluation_panel import EvaluationPanel
from loki_desktop.ui.settings.installed_models import ModelsPage
from loki_desktop.ui.settings.instructions import InstructionsPage
from loki_desktop.ui.settings.language_choice import language_choice
from loki_desktop.ui.settings.mcp import McpPage
from loki_desktop.ui.settings.memory_panel import MemorySection
from loki_desktop.ui.settings.model import ModelBehaviour
from loki_desktop.ui.settings.page import page_layout
from loki_desktop.ui.settings.servers import (
    InstructionsProbe,
    Probe,
    ServersEditor,
    drafts_of,
)
from loki_desktop.ui.settings.turn_steps import TurnSteps
from loki_desktop.ui.theme import Theme

MAX_ROUNDS_LIMIT = 50
# Context sizes Ollama models commonly run at; the model's own maximum still caps it.
CONTEXT_SIZES = (2048, 4096, 8192, 16384, 32768, 65536, 131072)


def _skill_card(skill: Skill) -> QFrame:
    card = QFrame()
    card.setProperty("card", True)
    inner = QVBoxLayout(card)
    inner.setContentsMargins(12, 8, 12, 8)
    inner.setSpacing(2)
    top = QHBoxLayout()
    top.addWidget(label(typeset(skill.title), "CardTitle"))
    top.addStretch(1)
    origin = _("intégrée") if skill.builtin else _("personnelle")
    top.addWidget(label(origin.upper(), "ToolCount"))
    inner.addLayout(top)
    inner.addWidget(label(typeset(skill.description), "CardDetail", wrap=True))
    return card


class GeneralPage(QWidget):
    def __init__(
        self,
        settings: Settings,
        theme: Theme,
        tasks: OwnedTasks,
        probe: Probe,
        profile_of: Callable[[str], ModelProfile | None] = lambda _name: None,
        instructions: InstructionsProbe | None = None,
    ) -> None:
        super().__init__()
        self.tasks = tasks
        self.probe = probe  # lists a server's models (Runtime.probe_server)
        self.instructions = instructions  # checks its models follow a system instruction
        self.profile_of = profile_of  # what a model of the current server can do, if known
        layout = page_layout(
            self,
            _("Général"),
            _(
                "Où trouver les modèles (Ollama, ou un serveur compatible OpenAI comme "
                "vLLM, llama.cpp ou LM Studio), quel modèle utiliser, et jusqu'où laisser "
                "l'agent aller."
            ),
        )
        form = wrapping_form()  # on a small screen a field goes under its label
        form.setSpacing(10)
        self._add_servers(settings, form)
        self._add_model(settings, form)
        self._add_rounds(settings, form)
        self._add_checkpoints_budget(settings, form)
        self._add_context(settings, form)
        self._add_look(settings, theme, form)
        layout.addLayout(form)
        layout.addStretch(1)

    def _add_servers(self, settings: Settings, form: QFormLayout) -> None:
        migrated = not settings.model_servers
        self.servers = ServersEditor(
            drafts_of(servers(settings), settings.host, migrated),
            self.tasks,
            self.probe,
            self.instructions,
        )
        self.servers.tested.connect(self._fill_models)
        self._tested: tuple[str, list[str]] = ("", [])  # the last server tested, its models
        # the selected server's fields (the tests and older code know them by these names)
        self.host, self.test_button = self.servers.host, self.servers.test_button
        self.test_result = self.servers.test_result
        form.addRow(label(_("Serveurs de modèles"), "CardTitle"), self.servers)

    def _add_model(self, settings: Settings, form: QFormLayout) -> None:
        self.model = narrow_combo(QComboBox(), 24)  # a long model name is no minimum width
        self.model.setEditable(True)
        self.model.setObjectName("DefaultModel")
        if settings.model:
            self.model.addItem(settings.model)
        self.model.setCurrentText(settings.model)
        model_edit = self.model.lineEdit()
        assert model_edit is not None
        model_edit.setPlaceholderText(_("le premier modèle du serveur"))
        form.addRow(label(_("Modèle par défaut"), "CardTitle"), self.model)
        self.behaviour = ModelBehaviour(settings, form)
        self.model.currentTextChanged.connect(self._on_model_text)
        self._on_model_text(self.model.currentText())

    def _add_rounds(self, settings: Settings, form: QFormLayout) -> None:
        self.max_rounds = QSpinBox()
        self.max_rounds.setRange(1, MAX_ROUNDS_LIMIT)
        self.max_rounds.setValue(settings.max_rounds)
        form.addRow(label(_("Tours d'outils au plus"), "CardTitle"), self.max_rounds)
        form.addRow(
            "",
            label(
                _("Au-delà, le tour s'arrête : un garde-fou contre les boucles."),
                "FieldHelp",
                wrap=True,
            ),
        )
        self.answer_caps = AnswerCapsRows(settings, form)

    def _add_context(self, settings: Settings, form: QFormLayout) -> None:
        self.num_ctx = QComboBox()
        self.num_ctx.setObjectName("ContextSize")
        # 0: none sent, the model's own context is used (core.llm.context_size)
        self.num_ctx.addItem(_("Automatique (celui du modèle)"), 0)
        for size in sorted({*CONTEXT_SIZES, settings.num_ctx} - {0}):
            self.num_ctx.addItem(_("{n} jetons").format(n=f"{size:,}".replace(",", " ")), size)
        self.num_ctx.setCurrentIndex(self.num_ctx.findData(settings.num_ctx))
        form.addRow(label(_("Contexte du modèle"), "CardTitle"), self.num_ctx)
        # two short help rows: one long wrapped row is squeezed by the form (layout audit)
        for help_text in (
            _(
                "Automatique : le contexte que le serveur applique au modèle (son num_ctx, "
                "sinon celui du serveur), visible dans Réglages → Modèles."
            ),
            _(
                "Une taille choisie est envoyée à Ollama (num_ctx) : plus grand, plus "
                "d'historique et d'outils, mais plus de mémoire. Plein, les échanges anciens "
                "sont résumés."
            ),
        ):
            form.addRow("", label(help_text, "FieldHelp", wrap=True))

    def _add_look(self, settings: Settings, theme: Theme, form: QFormLayout) -> None:
        self.theme = QComboBox()
        for value, text in (
            ("system", _("Comme le système")),
            ("light", _("Clair")),
            ("dark", _("Sombre")),
        ):
            self.theme.addItem(text, value)
        self.theme.setCurrentIndex(max(0, self.theme.findData(theme.choice)))
        form.addRow(label(_("Apparence"), "CardTitle"), self.theme)

        self.language = language_choice(settings.language)
        form.addRow(label(_("Langue"), "CardTitle"), self.language)
        self.language_note = label(
            _("Loki change de langue au prochain démarrage (fenêtre et commandes)."),
            "FieldHelp",
            wrap=True,
        )
        form.addRow("", self.language_note)

    def _add_checkpoints_budget(self, settings: Settings, form: QFormLayout) -> None:
        low, high = CHECKPOINTS_BUDGET_RANGE
        self.checkpoints_budget = QSpinBox()
        self.checkpoints_budget.setRange(low, high)
        self.checkpoints_budget.setSuffix(" " + _("Mo"))
        self.checkpoints_budget.setValue(settings.checkpoints_budget_mb)
        form.addRow(label(_("Points de restauration"), "CardTitle"), self.checkpoints_budget)
        help_text = _(
            "La place que gardent les états d'avant des fichiers modifiés (pour annuler un "
            "tour) ; au-delà, les plus anciens sont supprimés."
        )
        form.addRow("", label(help_text, "FieldHelp", wrap=True))

    def _on_model_text(self, text: str) -> None:
        name = text.strip()
        self.behaviour.show_for(name, self.profile_of(name) if name else None)

    def apply(self, settings: Settings) -> None:
        self.behaviour.apply(settings)
        drafts = self.servers.drafts
        if len(drafts) == 1 and drafts[0].kind == "ollama" and not drafts[0].server().has_key:
            # one Ollama server: the single host setting, as before there were several
            settings.model_servers, settings.host = [], drafts[0].url.strip()
            settings.model_server = drafts[0].name.strip()
        else:
            save_servers(settings, [draft.server() for draft in drafts])
        settings.model = self.model.currentText().strip()
        tested, names = self._tested
        if settings.model in names and tested in {d.name.strip() for d in drafts}:
            settings.model_server = tested  # a model of the server just tested: its server
        settings.max_rounds = self.max_rounds.value()
        self.answer_caps.apply(settings)
        settings.checkpoints_budget_mb = self.checkpoints_budget.value()
        settings.num_ctx = int(self.num_ctx.currentData())
        settings.ui["theme"] = str(self.theme.currentData())
        settings.language = str(self.language.currentData())

    def store_keys(self, store: Callable[[str, str], None]) -> bool:
        """Put the keys typed (or forgotten) into the keyring; True when one changed."""
        changed = False
        for draft in self.servers.drafts:
            if draft.key is not None:
                store(draft.name.strip(), draft.key)
                draft.has_key, draft.key, changed = bool(draft.key), None, True
        return changed

    def test_connection(self) -> None:
        self.servers.test_connection()

    def _fill_models(self, names: list[str]) -> None:
        draft = self.servers.current
        self._tested = (draft.name.strip() if draft else "", names)
        current = self.model.currentText()
        self.model.clear()
        self.model.addItems(names)
        self.model.setCurrentText(current if current else (names[0] if names else ""))


class IntelligencePage(QWidget):
    def __init__(self, runtime: Runtime) -> None:
        super().__init__()
        settings = runtime.settings
        self.skills_folder = runtime.services.user_skills_dir
        layout = page_layout(
            self,
            _("Intelligence"),
            _(
                "Ce que Loki ajoute au modèle : une méthode d'expert choisie pour chaque "
                "message, et la vérification des fichiers qu'il écrit."
            ),
        )
        self._add_switches(settings, layout)
        self.memory = MemorySection(runtime)
        layout.addWidget(self.memory)
        self.evaluation = EvaluationPanel(runtime)
        layout.addWidget(self.evaluation)
        self._add_skills(layout)

    def _add_switches(self, settings: Settings, layout: QVBoxLayout) -> None:
        self.skills_enabled = QCheckBox(_("Choisir une méthode d'expert pour chaque message"))
        self.skills_enabled.setChecked(settings.skills_enabled)
        layout.addWidget(self.skills_enabled)
        self.auto_checks = QCheckBox(
            _("Vérifier automatiquement les fichiers écrits (et les faire corriger)")
        )
        self.auto_checks.setChecked(settings.auto_checks)
        layout.addWidget(self.auto_checks)
        self.review_writes = QCheckBox(_("Demander avant d'écrire"))
        self.review_writes.setObjectName("ReviewWrites")
        self.review_writes.setChecked(settings.review_writes)
        layout.addWidget(self.review_writes)
        layout.addWidget(
            label(
                _(
                    "Loki montre le diff de chaque fichier qu'il veut créer ou modifier, et "
                    "attend votre accord : une fois, jamais, ou toujours pour la conversation. "
                    "Les commandes (run_shell) demandent toujours."
                ),
                "FieldHelp",
                wrap=True,
            )
        )
        # the plan step, the self-review and the code model (ui.settings.turn_steps)
        self.steps = TurnSteps(settings)
        layout.addWidget(self.steps)

    def _add_skills(self, layout: QVBoxLayout) -> None:
        """The skills found (built-in and the user's own), one card each, and their problems."""
        head = QHBoxLayout()
        head.addWidget(label(_("MÉTHODES TROUVÉES"), "SidebarCaption"))
        head.addStretch(1)
        open_folder = button(_("Ouvrir le dossier de mes méthodes"))
        open_folder.clicked.connect(self._open_folder)
        head.addWidget(open_folder)
        layout.addLayout(head)

        catalogue = load_skills(self.skills_folder)
        self.skill_names = [skill.name for skill in catalogue.skills]
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        holder = QWidget()
        holder.setObjectName("ChatArea")
        rows = QVBoxLayout(holder)
        rows.setContentsMargins(0, 0, 8, 0)
        rows.setSpacing(8)
        for skill in catalogue.skills:
            rows.addWidget(_skill_card(skill))
        for problem in catalogue.problems:
            rows.addWidget(label(problem, "ErrorText", wrap=True))
        if not catalogue.skills:
            rows.addWidget(label(_("Aucune méthode trouvée."), "Notice"))
        rows.addStretch(1)
        scroll.setWidget(holder)
        layout.addWidget(scroll, 1)

    def apply(self, settings: Settings) -> None:
        settings.skills_enabled = self.skills_enabled.isChecked()
        settings.auto_checks = self.auto_checks.isChecked()
        settings.review_writes = self.review_writes.isChecked()
        self.steps.apply(settings)
        self.memory.apply(settings)

    def _open_folder(self) -> None:
        self.skills_folder.mkdir(parents=True, exist_ok=True)
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.skills_folder)))


class SettingsDialog(QDialog):
    """The pages hold the edits until Save writes General and Intelligence into the runtime's
    settings (MCP changes apply at once). Deleted once closed."""

    applied = Signal()

    PAGES = ("general", "models", "mcp", "intelligence", "instructions")

    def __init__(self, runtime: Runtime, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("SettingsDialog")
        self.setWindowTitle(_("Réglages de Loki"))
        parent_window = parent.window() if parent is not None else None
        if parent_window is not None and parent_window.screen() is not None:
            self.setScreen(parent_window.screen())  # its first size is this screen's
        first_size(self, QSize(940, 700))
        self.runtime = runtime
        self.theme_state = theme
        self.tasks = OwnedTasks()
        self._disposal: asyncio.Task[None] | None = None
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        body = QHBoxLayout()
        body.setSpacing(0)
        self.nav = QListWidget()
        self.nav.setObjectName("SettingsNav")
        self.nav.setFixedWidth(210)
        self.nav.addItems(
            [
                _("Général"),
                _("Modèles"),
                _("Serveurs MCP"),
                _("Intelligence"),
                _("Instructions"),
            ]
        )
        body.addWidget(self.nav)
        self.pages = QStackedWidget()
        self.general = GeneralPage(
            runtime.settings,
            theme,
            self.tasks,
            runtime.probe_server,
            runtime.profile_of,
            runtime.probe_instructions,
        )
        self.models = ModelsPage(runtime, self._default_model_set)
        self.mcp = McpPage(runtime.mcp, self._start_enabled_servers)
        self.intelligence = IntelligencePage(runtime)
        self.general.servers.tested.connect(self.intelligence.steps.offer_models)  # code model
        self.intelligence.memory.pull = self._pull_model
        self.instructions = InstructionsPage(
            runtime.settings, prompts_folder(runtime.services.data_home)
        )
        pages = (self.general, self.models, self.mcp, self.intelligence, self.instructions)
        for page in pages:
            holder = QWidget()
            holder_layout = QVBoxLayout(holder)
            holder_layout.setContentsMargins(24, 20, 24, 12)
            holder_layout.addWidget(page)
            self.pages.addWidget(scroll_page(holder))  # a page taller than the screen scrolls
        body.addWidget(self.pages, 1)
        outer.addLayout(body, 1)
        bar = QFrame()
        bar.setObjectName("Footer")
        bar_layout = QHBoxLayout(bar)
        bar_layout.setContentsMargins(16, 10, 16, 10)
        # the MCP page saves each change at once: Enregistrer is not what keeps it
        self.footer_note = label(
            _("Les serveurs MCP s'enregistrent dès qu'on les change (un paramètre : Entrée)."),
            "FieldHelp",
            wrap=True,  # its length is no minimum width of the dialog
        )
        self.footer_note.hide()
        bar_layout.addWidget(self.footer_note, 3)
        bar_layout.addStretch(1)  # the buttons to the right when the note is hidden
        self.cancel_button = button(_("Annuler"))
        self.save_button = button(_("Enregistrer"), primary=True)
        bar_layout.addWidget(self.cancel_button)
        bar_layout.addWidget(self.save_button)
        outer.addWidget(bar)
        self.nav.currentRowChanged.connect(self.pages.setCurrentIndex)
        self.nav.currentRowChanged.connect(self._page_shown)
        self.nav.setCurrentRow(0)
        self.cancel_button.clicked.connect(self.reject)
        self.save_button.clicked.connect(self.save)
        self.finished.connect(self._closed)

    def _page_shown(self, row: int) -> None:
        self.footer_note.setVisible(self.PAGES[row] == "mcp")
        if self.PAGES[row] == "models" and not self.models.names:
            self.models.refresh()  # asked when first looked at, not at every opening

    def _default_model_set(self, name: str) -> None:
        self.general.model.setCurrentText(name)  # so that Save keeps it

    def _pull_model(self, name: str) -> None:
        """A download asked from another page (the embedding model) runs on Modèles."""
        self.show_page("models")
        self.models.pull_field.setText(name)
        self.models.pull_button.click()

    def show_page(self, name: str) -> None:
        self.nav.setCurrentRow(self.PAGES.index(name))

    def save(self) -> None:
        if problem := self.general.servers.problem():  # nothing is saved: say what to fix
            self.show_page("general")
            self.general.test_result.setText(problem)
            set_state(self.general.test_result, "state", "error")
            self.general.test_result.show()
            return
        settings = self.runtime.settings
        self.general.apply(settings)
        self.intelligence.apply(settings)
        self.instructions.apply(settings)
        keys_changed = self.general.store_keys(self.runtime.store_server_key)
        self.runtime.apply_servers(keys_changed=keys_changed)
        self.runtime.save_settings()
        self.theme_state.set_choice(str(settings.ui.get("theme", "system")))
        self.applied.emit()
        self.accept()

    def _start_enabled_servers(self) -> None:
        """A server turned on starts now, so its dot turns green while the dialog is open."""
        self.tasks.spawn(self._prepare_servers())

    async def _prepare_servers(self) -> None:
        notices = await self.runtime.mcp.manager.prepare()
        self.runtime.pending_notices += notices

    def _closed(self, _result: int) -> None:
        self.mcp.close_page()
        self._disposal = asyncio.ensure_future(self._dispose())

    async def _dispose(self) -> None:
        """Deleted once its tasks have ended, so none resumes on a deleted widget."""
        await asyncio.gather(
            self.tasks.cancel_all(),
            self.mcp.tasks.cancel_all(),
            self.models.aclose(),
            self.intelligence.evaluation.tasks.cancel_all(),
        )
        self.deleteLater()
