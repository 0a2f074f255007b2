"""Settings › General: how Loki drives the chosen model (Réflexion, and how tools reach it)."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QComboBox, QFormLayout, QSizePolicy

from loki_desktop.core.i18n import _
from loki_desktop.core.llm.thinking import think_choices
from loki_desktop.core.ports import ModelProfile
from loki_desktop.core.settings import THINK_MODES, TOOL_MODES, Settings
from loki_desktop.ui.qt_helpers import ElidedLabel, label, narrow_combo

TOOLS_LABEL_PX = 170  # no wider than the form's other labels, whatever the model's name


class ModelBehaviour(QObject):
    """Two rows added to the General form: Réflexion (for every model, a level only where
    the model lists it) and the tool mode of the default model (kept per model)."""

    def __init__(self, settings: Settings, form: QFormLayout) -> None:
        super().__init__(form)
        self.think_mode = settings.think
        self.tool_modes = dict(settings.tool_modes)
        self.model = ""
        self._profile: ModelProfile | None = None
        self.think = narrow_combo(QComboBox())
        self.think.setObjectName("ThinkMode")
        form.addRow(label(_("Réflexion"), "CardTitle"), self.think)
        self.think_help = label("", "FieldHelp", wrap=True)
        form.addRow("", self.think_help)
        self.tools = narrow_combo(QComboBox())
        self.tools.setObjectName("ToolMode")
        for mode in TOOL_MODES:
            self.tools.addItem(self._tool_text(mode), mode)
        # the model's name can be long: elided, whole in its tooltip
        self.tools_label = ElidedLabel(_("Outils du modèle"), "CardTitle")
        self.tools_label.setMaximumWidth(TOOLS_LABEL_PX)
        # not Ignored: a form gives an Ignored label no width at all
        self.tools_label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        form.addRow(self.tools_label, self.tools)
        self.tools_help = label("", "FieldHelp", wrap=True)
        form.addRow("", self.tools_help)
        self.think.activated.connect(self._on_think)
        self.tools.activated.connect(self._on_tools)
        self.show_for("", None)

    def show_for(self, model: str, profile: ModelProfile | None) -> None:
        """Fill both rows for `model` (its profile gives the levels; None: not known yet)."""
        self.model = model
        choices = list(think_choices(profile) if profile is not None else ())
        for mode in THINK_MODES:  # the three plain ones, always: the setting is for all
            if mode not in choices:
                choices.append(mode)
        if self.think_mode not in choices:
            choices.append(self.think_mode)  # a level saved for another model stays shown
        self.think.clear()
        for mode in sorted(choices, key=_menu_order):
            self.think.addItem(self._think_text(mode), mode)
        self.think.setCurrentIndex(self.think.findData(self.think_mode))
        self._profile = profile
        self.think_help.setText(self._think_help(model, profile))
        self.tools_label.set_full_text(
            _("Outils de « {model} »").format(model=model) if model else _("Outils du modèle")
        )
        self.tools.setEnabled(bool(model))
        mode = self.tool_modes.get(model, "auto")
        self.tools.setCurrentIndex(max(0, self.tools.findData(mode)))
        self.tools_help.setText(self._tools_help(profile))

    def apply(self, settings: Settings) -> None:
        settings.think = self.think_mode
        settings.tool_modes = {m: v for m, v in self.tool_modes.items() if v != "auto"}

    # --- edits ------------------------------------------------------------------------

    def _on_think(self, index: int) -> None:
        self.think_mode = str(self.think.itemData(index))
        self.think_help.setText(self._think_help(self.model, self._profile))

    def _on_tools(self, index: int) -> None:
        if self.model:
            self.tool_modes[self.model] = str(self.tools.itemData(index))

    # --- words ------------------------------------------------------------------------

    def _think_text(self, mode: str) -> str:
        words = {
            "auto": _("Automatique (le choix du modèle)"),
            "off": _("Désactivée"),
            "on": _("Activée"),
            "low": _("Niveau faible (low)"),
            "medium": _("Niveau moyen (medium)"),
            "high": _("Niveau élevé (high)"),
        }
        return words.get(mode, _("Niveau {name}").format(name=mode))

    def _tool_text(self, mode: str) -> str:
        return {
            "auto": _("Automatique (selon le modèle)"),
            "native": _("Natifs (champ « tools » d'Ollama)"),
            "prompted": _("Décrits dans le message système"),
            "none": _("Aucun outil"),
        }[mode]

    def _think_help(self, model: str, profile: ModelProfile | None) -> str:
        if self.think_mode == "off":  # the hint says what the chosen setting does
            return _(
                "Réflexion désactivée : Loki demande au modèle de répondre sans réfléchir à "
                "voix haute."
            )
        if profile is None or not model:
            return _(
                "Pour les modèles qui réfléchissent avant de répondre (qwen3, deepseek-r1, "
                "gpt-oss…). Un niveau n'est envoyé qu'à un modèle qui le propose."
            )
        if not profile.thinking:
            return _(
                "« {model} » ne réfléchit pas à voix haute : ce réglage ne change rien pour lui."
            ).format(model=model)
        if profile.think_levels:
            return _("« {model} » propose les niveaux : {levels}.").format(
                model=model, levels=", ".join(profile.think_levels)
            )
        return _(
            "« {model} » réfléchit avant de répondre ; sa réflexion s'affiche, repliée, "
            "au-dessus de la réponse."
        ).format(model=model)

    def _tools_help(self, profile: ModelProfile | None) -> str:
        if profile is not None and profile.known and not profile.tools:
            return _(
                "Ce modèle n'a pas d'outils natifs : en automatique, Loki les lui décrit dans "
                "le message système et lit ses appels dans sa réponse."
            )
        return _(
            "Automatique : natifs si le modèle les annonce, décrits sinon (ou si le serveur "
            "les refuse). « Aucun outil » : une simple conversation."
        )


def _menu_order(mode: str) -> int:
    order = ("auto", "off", "on", "low", "medium", "high")
    return order.index(mode) if mode in order else len(order)
