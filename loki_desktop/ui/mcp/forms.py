"""The dialog an MCP server's form request becomes (and a prompt's arguments): one widget a field.

Built from core.mcp.elicitation's ElicitationForm: text boxes for strings and numbers, a box
for booleans, a list for single choices, check boxes for multi-choices; defaults filled,
required fields marked, titles and descriptions shown. "Envoyer" checks the form with the
core's own rules (the CLI's), and shows each field's error under it. URL requests get their
own dialog: the address, and the browser opens only once the person agrees.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSize, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QTextOption
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from loki_desktop.core.i18n import _
from loki_desktop.core.mcp.elicitation import ElicitationForm, FormField, Value
from loki_desktop.core.mcp.host import ElicitAction, ElicitationAnswer, ElicitationRequest
from loki_desktop.ui.qt_helpers import button, first_size, label, scroll_page, wrapping_form

DIALOG_SIZE = QSize(620, 520)  # a first size with room for wrapped texts (less on a small screen)
ADDRESS_PX = 90  # the address view's height at most: a longer address scrolls

FORMAT_HINTS = {"email": "nom@exemple.fr", "uri": "https://…", "date": "AAAA-MM-JJ"}


class _Answered(QDialog):
    """A dialog whose outcome is an ElicitationAnswer (Esc and the close box cancel)."""

    def __init__(self, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.answer = ElicitationAnswer("cancel")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setMinimumWidth(520)

    def _finish(self, action: ElicitAction, content: dict[str, Value] | None = None) -> None:
        self.answer = ElicitationAnswer(action, content)
        if action == "accept":
            self.accept()
        else:
            self.reject()

    def _buttons(self, accept_text: str, *, decline: bool = True) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addStretch(1)
        self.cancel_button = button(_("Annuler"), flat=True)
        self.cancel_button.clicked.connect(lambda: self._finish("cancel"))
        row.addWidget(self.cancel_button)
        if decline:
            self.decline_button = button(_("Refuser"))
            self.decline_button.clicked.connect(lambda: self._finish("decline"))
            row.addWidget(self.decline_button)
        self.accept_button = button(accept_text, primary=True)
        row.addWidget(self.accept_button)
        return row


class ElicitationDialog(_Answered):
    """A form request: `inputs[name]` is each field's widget, `errors[name]` its error line."""

    def __init__(
        self,
        form: ElicitationForm,
        *,
        title: str,
        message: str,
        accept_text: str = "",
        decline: bool = True,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("ElicitationDialog")
        self.form = form
        self.setWindowTitle(title)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 18, 20, 18)
        layout.setSpacing(10)
        layout.addWidget(label(title, "PageTitle", wrap=True))
        if message:
            layout.addWidget(label(message, "PageIntro", wrap=True))
        fields = wrapping_form()  # a long caption puts its field under it
        fields.setSpacing(8)
        self.inputs: dict[str, QWidget] = {}
        self.errors: dict[str, QLabel] = {}
        for item in form.fields:
            fields.addRow(_caption(item), self._field_box(item))
        holder = QWidget()
        holder.setLayout(fields)
        layout.addWidget(scroll_page(holder), 1)  # a long form scrolls, its buttons stay
        layout.addLayout(self._buttons(accept_text or _("Envoyer"), decline=decline))
        self.accept_button.clicked.connect(self.submit)
        self.accept_button.setDefault(True)
        first_size(self, DIALOG_SIZE)  # its wrapped texts need more than Qt's first guess

    def _field_box(self, item: FormField) -> QWidget:
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        widget = _input_for(item)
        widget.setObjectName(f"field-{item.name}")
        self.inputs[item.name] = widget
        column.addWidget(widget)
        if item.description:
            column.addWidget(label(item.description, "FieldHelp", wrap=True))
        error = label("", "ErrorText", wrap=True)
        error.hide()
        self.errors[item.name] = error
        column.addWidget(error)
        return box

    def values(self) -> dict[str, Any]:
        return {name: _value_of(widget) for name, widget in self.inputs.items()}

    def submit(self) -> bool:
        """Check the form; send it when it holds, else show each error. True when sent."""
        content, errors = self.form.validate(self.values())
        for name, error in self.errors.items():
            error.setText(errors.get(name, ""))
            error.setVisible(name in errors)
        if errors:
            self.inputs[next(iter(errors))].setFocus()
            return False
        self._finish("accept", content)
        return True


class UrlDialog(_Answered):
    """A URL request: the full address shown; the browser opens only on "Ouvrir"."""

    def __init__(self, request: ElicitationRequest, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("UrlElicitationDialog")
        self.url = request.url
        title = _("« {name} » vous demande d'ouvrir une page").format(name=request.server_label)
        self.setWindowTitle(title)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 18, 20, 18)
        layout.setSpacing(10)
        layout.addWidget(label(title, "PageTitle", wrap=True))
        layout.addWidget(label(request.message, "PageIntro", wrap=True))
        # the whole address, wrapped anywhere (it has no spaces), selectable, never elided
        address = QPlainTextEdit(request.url)
        address.setObjectName("CardMono")
        address.setReadOnly(True)
        address.setWordWrapMode(QTextOption.WrapMode.WrapAnywhere)
        address.setMaximumHeight(ADDRESS_PX)
        layout.addWidget(address)
        host = QUrl(request.url).host() or request.url
        layout.addWidget(
            label(
                _(
                    "La page s'ouvrira dans votre navigateur, sur {host}. Ce que vous y saisirez "
                    "ne passe pas par Loki."
                ).format(host=host),
                "FieldHelp",
                wrap=True,
            )
        )
        layout.addLayout(self._buttons(_("Ouvrir dans le navigateur")))
        self.accept_button.clicked.connect(self.open_page)
        self.decline_button.setDefault(True)  # Enter never opens a page by accident
        first_size(self, DIALOG_SIZE)

    def open_page(self) -> None:
        QDesktopServices.openUrl(QUrl(self.url))
        self._finish("accept")


def request_dialog(request: ElicitationRequest, parent: QWidget | None) -> _Answered:
    if request.form is None:
        return UrlDialog(request, parent)
    return ElicitationDialog(
        request.form,
        title=_("« {name} » vous demande des informations").format(name=request.server_label),
        message=request.message,
        parent=parent,
    )


def _caption(item: FormField) -> QLabel:
    text = item.label + (" *" if item.required else "")
    caption = QLabel(text)
    caption.setWordWrap(True)  # a long title is no minimum width of the dialog
    if item.required:
        caption.setToolTip(_("Obligatoire"))
    return caption


def _input_for(item: FormField) -> QWidget:
    match item.kind:
        case "boolean":
            box = QCheckBox(_("Oui"))
            box.setChecked(bool(item.default))
            return box
        case "choice":
            combo = QComboBox()
            if not item.required and item.default is None:
                combo.addItem("—", None)
            for choice in item.choices:
                combo.addItem(choice.label, choice.value)
            if item.default is not None:
                combo.setCurrentIndex(max(0, combo.findData(item.default)))
            return combo
        case "choices":
            listing = QListWidget()
            chosen = set(item.default or []) if isinstance(item.default, list) else set()
            for choice in item.choices:
                entry = QListWidgetItem(choice.label)
                entry.setData(Qt.ItemDataRole.UserRole, choice.value)
                checked = choice.value in chosen
                entry.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
                listing.addItem(entry)
            listing.setFixedHeight(min(6, max(2, len(item.choices))) * 24 + 6)
            return listing
        case _:
            line = QLineEdit("" if item.default is None else str(item.default))
            line.setPlaceholderText(FORMAT_HINTS.get(item.format, ""))
            return line


def _value_of(widget: QWidget) -> Any:
    if isinstance(widget, QCheckBox):
        return widget.isChecked()
    if isinstance(widget, QComboBox):
        return widget.currentData()
    if isinstance(widget, QListWidget):
        return [
            widget.item(i).data(Qt.ItemDataRole.UserRole)
            for i in range(widget.count())
            if widget.item(i).checkState() == Qt.CheckState.Checked
        ]
    if isinstance(widget, QLineEdit):
        return widget.text()
    return None
