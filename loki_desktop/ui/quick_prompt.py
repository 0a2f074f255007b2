"""The quick prompt: a small always-on-top box that streams an answer in place."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QGuiApplication, QKeySequence, QMouseEvent, QShortcut
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from loki_desktop.core.i18n import _
from loki_desktop.ui.changes.approval import ShellApprover
from loki_desktop.ui.chat.view import ChatView
from loki_desktop.ui.qt_helpers import button, label
from loki_desktop.ui.runtime import Runtime
from loki_desktop.ui.text.markdown_render import MarkdownRenderer
from loki_desktop.ui.theme import app_icon
from loki_desktop.ui.turns import TurnRunner

WIDTH = 640
MIN_ANSWER_HEIGHT = 120
MAX_ANSWER_HEIGHT = 420


class QuickPrompt(QWidget):
    """Ask, watch the answer stream, then open the exchange in the main window if needed."""

    open_requested = Signal(str)  # the conversation id

    def __init__(self, runtime: Runtime, renderer: MarkdownRenderer) -> None:
        super().__init__(
            None,
            Qt.WindowType.Tool
            | Qt.WindowType.WindowStaysOnTopHint
            | Qt.WindowType.FramelessWindowHint,
        )
        self.setObjectName("QuickPrompt")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setWindowTitle(_("Question rapide — Loki"))
        self.setWindowIcon(app_icon())
        self.runtime = runtime
        self.conversation_id: str | None = None
        self.approver = ShellApprover(self, lambda: self.view.renderer)
        self._drag_from: QPoint | None = None
        self.setFixedWidth(WIDTH)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 14)
        layout.setSpacing(10)
        head = QHBoxLayout()
        head.setSpacing(8)
        logo = QLabel()
        logo.setPixmap(app_icon().pixmap(26, 26))
        head.addWidget(logo)
        head.addWidget(label(_("QUESTION RAPIDE"), "PanelTitle"))
        head.addStretch(1)
        self.close_button = button("✕", flat=True)
        self.close_button.setToolTip(_("Fermer (Échap)"))
        self.close_button.clicked.connect(self.dismiss)
        head.addWidget(self.close_button)
        layout.addLayout(head)

        row = QHBoxLayout()
        row.setSpacing(8)
        self.input = QLineEdit()
        self.input.setObjectName("QuickInput")
        self.input.setPlaceholderText(_("Demandez n'importe quoi à Loki…"))
        self.input.returnPressed.connect(self.submit)
        row.addWidget(self.input, 1)
        self.ask_button = button(_("Demander"), primary=True)
        self.ask_button.clicked.connect(self._on_ask_button)
        row.addWidget(self.ask_button)
        layout.addLayout(row)

        self.answer_frame = QFrame()
        self.answer_frame.setObjectName("QuickAnswer")
        answer_layout = QVBoxLayout(self.answer_frame)
        answer_layout.setContentsMargins(0, 0, 0, 0)
        self.view = ChatView(renderer)
        self.view.forget_memory = runtime.forget_memory
        self.view.setFixedHeight(MIN_ANSWER_HEIGHT)
        self.view.verticalScrollBar().rangeChanged.connect(self._fit_answer)
        answer_layout.addWidget(self.view)
        self.answer_frame.hide()
        layout.addWidget(self.answer_frame)

        foot = QHBoxLayout()
        self.hint = label(_("Entrée : demander · Échap : arrêter ou fermer"), "ComposerHint")
        foot.addWidget(self.hint, 1)
        self.new_button = button(_("Nouvelle question"), flat=True)
        self.new_button.clicked.connect(self.reset)
        self.new_button.hide()
        foot.addWidget(self.new_button)
        self.open_button = button(_("Ouvrir dans Loki"))
        self.open_button.clicked.connect(self._open_in_main)
        self.open_button.setEnabled(False)
        foot.addWidget(self.open_button)
        layout.addLayout(foot)

        self.runner = TurnRunner(
            self.view,
            lambda: self.runtime.make_agent(self.approver),
            runtime.running_turns,
            self,
            prepare=runtime.load_agent,
        )
        self.runner.busy_changed.connect(self._on_busy)
        self.view.retry_requested.connect(self._retry)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.escape)

    def set_renderer(self, renderer: MarkdownRenderer) -> None:
        """The theme changed: the next answers use its colours."""
        self.view.renderer = renderer

    # --- showing ---------------------------------------------------------------------

    def present(self) -> None:
        """Show the box near the top of the screen, ready to type."""
        self.adjustSize()
        screen = QGuiApplication.primaryScreen()
        if screen is not None and not self.isVisible():
            area = screen.availableGeometry()
            self.move(area.center().x() - WIDTH // 2, area.top() + area.height() // 6)
        self.show()
        self.raise_()
        self.activateWindow()
        self.input.setFocus()

    def present_new(self) -> None:
        """Show the box for a new question (the tray). An answer still streaming stays."""
        self.reset()
        self.present()

    def ask(self, text: str) -> None:
        """Ask `text` at once in a new conversation (`--quick "..."`, a second launch).
        While an answer still streams, the question waits in the box."""
        self.present_new()
        self.input.setText(text)
        self.submit()

    def reset(self) -> None:
        if self.runner.busy:
            return
        self.conversation_id = None
        self.view.clear()
        self.answer_frame.hide()
        self.open_button.setEnabled(False)
        self.new_button.hide()
        self.input.clear()
        self.input.setFocus()
        self.adjustSize()

    def dismiss(self) -> None:
        self.runner.stop()
        self.hide()

    def escape(self) -> None:
        if self.runner.busy:
            self.runner.stop()
        else:
            self.hide()

    # --- asking ----------------------------------------------------------------------

    def submit(self) -> None:
        text = self.input.text().strip()
        if not text or self.runner.busy:
            return
        if self.conversation_id is None:
            self.conversation_id = self.runtime.new_conversation(text)
        elif not self.runner.can_start(self.conversation_id):
            self.view.add_notice(
                _(
                    "La fenêtre de Loki répond encore dans cette conversation : "
                    "demandez quand elle aura fini, ou posez une nouvelle question."
                )
            )
            return
        self.input.clear()
        self.answer_frame.show()
        self.adjustSize()
        self.view.add_user_message(text)
        self.runner.send(text, self.conversation_id)

    def _retry(self) -> None:
        if self.conversation_id is not None and self.runner.can_start(self.conversation_id):
            self.runner.retry(self.conversation_id)

    def _on_ask_button(self) -> None:
        if self.runner.busy:
            self.runner.stop()
        else:
            self.submit()

    def _on_busy(self, busy: bool) -> None:
        self.ask_button.setText(_("Arrêter") if busy else _("Demander"))
        self.open_button.setEnabled(not busy and self.conversation_id is not None)
        self.new_button.setVisible(not busy and self.conversation_id is not None)

    def _open_in_main(self) -> None:
        """The window takes the conversation over; the next quick question starts anew."""
        if self.conversation_id is not None and not self.runner.busy:
            self.open_requested.emit(self.conversation_id)
            self.hide()
            self.reset()

    def _fit_answer(self, *_args: object) -> None:
        """The answer area grows with the answer, up to a limit (then it scrolls)."""
        area = self.view.widget()
        wanted = area.sizeHint().height() + 2 * self.view.frameWidth() if area else 0
        height = max(MIN_ANSWER_HEIGHT, min(MAX_ANSWER_HEIGHT, wanted))
        if height != self.view.height():
            self.view.setFixedHeight(height)
            self.adjustSize()

    async def shutdown(self) -> None:
        self.runner.stop()
        await self.runner.wait()

    # --- moving a frameless window ------------------------------------------------------

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._drag_from = event.globalPosition().toPoint() - self.frameGeometry().topLeft()
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._drag_from is not None and event.buttons() & Qt.MouseButton.LeftButton:
            self.move(event.globalPosition().toPoint() - self._drag_from)
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self._drag_from = None
        super().mouseReleaseEvent(event)
