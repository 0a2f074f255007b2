"""The row under a message: its versions ("‹ 2/3 ›") and what can be done with it (edit one
of the person's messages; regenerate an answer, with the same model or another one)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QPushButton, QWidget

from loki_desktop.core.i18n import _
from loki_desktop.core.messages import Branches


class BranchBar(QWidget):
    """For the person's message (`kind` "question": Modifier) or an answer ("answer":
    Régénérer, Régénérer avec…); the arrows only when the message has other versions.
    `message_id` is the message whose versions the arrows move between: the question, or
    the first message of the answer."""

    step_requested = Signal(int, int)  # message id, -1 or +1
    edit_requested = Signal(int)  # the question's id
    # the question's id, the server and the model ("", "": the ones in use)
    regenerate_requested = Signal(int, str, str)

    def __init__(
        self,
        kind: str,
        message_id: int,
        question_id: int,
        versions: Branches | None,
        models: Callable[[], list[tuple[str, str]]] = list,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("BranchBar")
        self.kind = kind
        self.message_id = message_id
        self.question_id = question_id
        self.versions = versions
        self._models = models
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.previous: QPushButton | None = None
        self.next: QPushButton | None = None
        self.position: QLabel | None = None
        if versions is not None:
            self._arrows(layout, versions)
        if kind == "question":
            edit = _small(_("Modifier"), _("Modifier ce message et le renvoyer (Ctrl+↑)"))
            edit.clicked.connect(lambda: self.edit_requested.emit(question_id))
            layout.addWidget(edit)
        else:
            again = _small(_("Régénérer"), _("Redemander cette réponse au même modèle"))
            again.clicked.connect(lambda: self.regenerate_requested.emit(question_id, "", ""))
            layout.addWidget(again)
            self.with_model = _small(_("Régénérer avec…"), _("Redemander à un autre modèle"))
            self.with_model.clicked.connect(self._choose_model)
            layout.addWidget(self.with_model)
        layout.addStretch(1)

    def _arrows(self, layout: QHBoxLayout, versions: Branches) -> None:
        previous = _small("‹", _("Version précédente"), narrow=True)
        previous.setEnabled(versions.index > 0)
        previous.clicked.connect(lambda: self.step_requested.emit(self.message_id, -1))
        position = QLabel(versions.label)
        position.setObjectName("BranchPosition")
        following = _small("›", _("Version suivante"), narrow=True)
        following.setEnabled(versions.index < len(versions.ids) - 1)
        following.clicked.connect(lambda: self.step_requested.emit(self.message_id, 1))
        for widget in (previous, position, following):
            layout.addWidget(widget)
        self.previous, self.position, self.next = previous, position, following

    def model_menu(self) -> QMenu:
        """The installed models of every configured server, one action each (under each
        server's name when there are several)."""
        menu = QMenu(self)
        listed = self._models()
        several = len({server for server, _model in listed}) > 1
        shown = ""
        for server, model in listed:
            if several and server != shown:
                menu.addSection(server)
                shown = server
            menu.addAction(model, self._regenerate_with(server, model))
        if menu.isEmpty():
            menu.addAction(_("Aucun modèle installé")).setEnabled(False)
        return menu

    def _regenerate_with(self, server: str, model: str) -> Callable[[], None]:
        return lambda: self.regenerate_requested.emit(self.question_id, server, model)

    def _choose_model(self) -> None:
        self.model_menu().popup(self.with_model.mapToGlobal(self.with_model.rect().bottomLeft()))


def _small(text: str, tip: str, *, narrow: bool = False) -> QPushButton:
    button = QPushButton(text)
    button.setObjectName("BranchButton")
    button.setToolTip(tip)
    button.setFlat(True)
    if narrow:  # an arrow: as wide as it is high, whatever the style's button padding
        button.setFixedWidth(button.sizeHint().height())
    return button
