"""Whether Ollama answers: the banner that says how to start it, and the model picker."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from loki_desktop.core.i18n import _
from loki_desktop.core.ports import ModelProfile
from loki_desktop.ui.models.marks import MARKS_ROLE, MarksDelegate, describe, marks_of
from loki_desktop.ui.qt_helpers import button, label

SUGGESTED_MODEL = "qwen2.5-coder:7b"
SERVER_ROLE = Qt.ItemDataRole.UserRole + 2  # the name of the server a model row belongs to
# The other servers' models for the picker: (server name, its models or why it has none).
OtherServers = Sequence[tuple[str, list[str] | str]]


class OllamaBanner(QFrame):
    """Shown when the model server cannot be used: what is wrong, how to fix it, Retry."""

    retry_requested = Signal()
    settings_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Banner")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 10)
        layout.setSpacing(14)
        texts = QVBoxLayout()
        texts.setSpacing(4)
        self.title = label("", "BannerTitle", wrap=True)
        self.body = label("", "", wrap=True)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        texts.addWidget(self.title)
        texts.addWidget(self.body)
        layout.addLayout(texts, 1)
        self.retry_button = button(_("Réessayer"), primary=True)
        self.retry_button.clicked.connect(self.retry_requested)
        self.settings_button = button(_("Réglages"))
        self.settings_button.clicked.connect(self.settings_requested)
        layout.addWidget(self.retry_button, 0, Qt.AlignmentFlag.AlignVCenter)
        layout.addWidget(self.settings_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.hide()

    def show_unreachable(self, host: str) -> None:
        self.title.setText(_("Ollama n'est pas joignable à {host}").format(host=host))
        self.body.setText(
            _(
                "Loki a besoin d'Ollama pour faire tourner les modèles sur cet ordinateur. "
                "Installez-le depuis https://ollama.com/download, puis démarrez-le "
                "(« ollama serve » dans un terminal, ou l'application Ollama). "
                "Vos messages sont gardés : réessayez quand il tourne."
            )
        )
        self.show()

    def show_no_model(self, host: str, list_below: bool = True) -> None:
        """`list_below`: the first-run choice of a model is on screen under the banner (the
        welcome page); over a conversation it is not, and the banner says where it is."""
        self.title.setText(_("Ollama répond, mais n'a aucun modèle"))
        if list_below:
            text = _(
                "Choisissez-en un ci-dessous pour le télécharger, ou lancez "
                "« ollama pull {model} » dans un terminal. (Serveur : {host})"
            )
        else:
            text = _(
                "Ouvrez une nouvelle conversation pour en choisir un à télécharger, ou lancez "
                "« ollama pull {model} » dans un terminal. (Serveur : {host})"
            )
        self.body.setText(text.format(model=SUGGESTED_MODEL, host=host))
        self.show()

    def show_no_answer(self, host: str, message: str) -> None:
        self.title.setText(_("Ollama ne répond pas à {host}").format(host=host))
        self.body.setText(message)
        self.show()

    def show_missing_model(self, host: str, model: str) -> None:
        self.title.setText(
            _("Le modèle « {model} » n'est pas installé sur ce serveur").format(model=model)
        )
        self.body.setText(
            _(
                "Choisissez-en un autre dans la liste MODÈLE, ou téléchargez-le avec "
                "« ollama pull {model} », puis réessayez. (Serveur : {host})"
            ).format(model=model, host=host)
        )
        self.show()

    def show_error(self, host: str, message: str) -> None:
        self.title.setText(_("Ollama ne répond pas correctement à {host}").format(host=host))
        self.body.setText(message)
        self.show()

    def show_server_problem(self, host: str, message: str) -> None:
        """An OpenAI-compatible server that cannot be used: its sentence (no Ollama advice)."""
        self.title.setText(_("Le serveur de modèles {host} n'est pas utilisable").format(host=host))
        self.body.setText(message)
        self.show()

    def set_checking(self, checking: bool) -> None:
        self.retry_button.setEnabled(not checking)
        self.retry_button.setText(_("Vérification…") if checking else _("Réessayer"))


class ModelPicker(QComboBox):
    """The model of the next turns, filled from the server, each with its capability marks."""

    model_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ModelPicker")
        self.setMinimumWidth(190)
        self.setToolTip(_("Modèle utilisé pour les prochains messages"))
        self.setItemDelegate(MarksDelegate(self))
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self._filling = False
        self.currentIndexChanged.connect(self._on_index)

    def set_models(
        self,
        names: list[str],
        current: str,
        profiles: Mapping[str, ModelProfile] | None = None,
        *,
        server: str = "",
        others: OtherServers = (),
    ) -> str:
        """Fill the list; returns the model now selected ("" when there is none).

        A `current` the server does not have stays selected, marked missing: turns use the
        saved model, so the picker must not show another one in its place. `profiles` give
        each model its marks (tools, thinking, vision) and a tooltip. With `others` (the
        other servers' models), the list is grouped under a heading per server, `server`
        (the current one) first; choosing another server's model switches to that server."""
        profiles = profiles or {}
        self._filling = True
        try:
            self.clear()
            if others:
                self._heading(server)
            for name in names:
                self.addItem(name, name)
                self.setItemData(self.count() - 1, server, SERVER_ROLE)
                profile = profiles.get(name)
                self.setItemData(self.count() - 1, marks_of(profile), MARKS_ROLE)
                if profile is not None:
                    self.setItemData(
                        self.count() - 1, describe(profile), Qt.ItemDataRole.ToolTipRole
                    )
            self._add_others(others)
            if not names:
                self.insertItem(0, current or _("Aucun modèle"), current)
                self.setCurrentIndex(0)
                self.setEnabled(bool(others))
                return current
            self.setEnabled(True)
            self._fit_list()
            if current and current not in names:
                self.insertItem(0, _("{model} (absent)").format(model=current), current)
                self.setCurrentIndex(0)
                return current
            index = names.index(current) if current in names else 0
            self.setCurrentIndex(self.findData(names[index]))
            return names[index]
        finally:
            self._filling = False

    def _heading(self, text: str) -> None:
        """A row that names a server; it cannot be chosen."""
        self.addItem(text, None)
        model = self.model()
        assert isinstance(model, QStandardItemModel)
        item = model.item(self.count() - 1)
        item.setEnabled(False)
        item.setSelectable(False)
        # a caption, not a choice: small capitals like the sidebar's captions, indented less
        font = item.font()
        font.setBold(True)
        font.setCapitalization(QFont.Capitalization.AllUppercase)
        font.setLetterSpacing(QFont.SpacingType.PercentageSpacing, 108)
        if font.pointSizeF() > 0:
            font.setPointSizeF(font.pointSizeF() * 0.85)
        item.setFont(font)

    def _add_others(self, others: OtherServers) -> None:
        for server, models in others:
            self._heading(server)
            if isinstance(models, str):  # the server failed: why, as a row that cannot be chosen
                short = models if len(models) <= 60 else models[:59] + "…"
                self._heading(short)
                self.setItemData(self.count() - 1, models, Qt.ItemDataRole.ToolTipRole)
                continue
            for name in models:
                self.addItem(name, name)
                self.setItemData(self.count() - 1, server, SERVER_ROLE)

    def current_model(self) -> str:
        return str(self.currentData() or "")

    def current_server(self) -> str:
        """The server of the chosen row ("" when the list is not grouped)."""
        return str(self.itemData(self.currentIndex(), SERVER_ROLE) or "")

    def models_of(self, server: str) -> list[str]:
        """The model rows under `server` (tests, the picker's grouping)."""
        return [
            str(self.itemData(row))
            for row in range(self.count())
            if self.itemData(row, SERVER_ROLE) == server
        ]

    def _fit_list(self) -> None:
        """The open list is as wide as its widest row (name and marks), not the box."""
        view = self.view()
        delegate = self.itemDelegate()
        option = QStyleOptionViewItem()
        option.initFrom(view)
        widest = max(
            (
                delegate.sizeHint(option, self.model().index(row, 0)).width()
                for row in range(self.count())
            ),
            default=0,
        )
        view.setMinimumWidth(widest + view.verticalScrollBar().sizeHint().width())

    def marks(self, name: str) -> list[str]:
        """The marks shown beside `name` in the list (tests, the header)."""
        index = self.findData(name)
        return list(self.itemData(index, MARKS_ROLE) or []) if index >= 0 else []

    def _on_index(self, _index: int) -> None:
        if not self._filling and self.current_model():
            self.model_chosen.emit(self.current_model())
