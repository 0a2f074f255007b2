"""Starting the window: one instance per user, the qasync loop, the tray, and a clean exit."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from typing import Any

import qasync
from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator
from PySide6.QtWidgets import QApplication, QMessageBox

from loki_desktop.core.i18n import _, language
from loki_desktop.core.ports import StoreUnavailable
from loki_desktop.core.services import Services
from loki_desktop.ui.collector import MainThreadCollector
from loki_desktop.ui.qt_gaps import QtGaps
from loki_desktop.ui.quick_prompt import QuickPrompt
from loki_desktop.ui.runtime import Runtime
from loki_desktop.ui.single_instance import InstanceLock, InstanceServer, hand_off, socket_name
from loki_desktop.ui.theme import Theme, app_icon
from loki_desktop.ui.tray import LokiTray, tray_available
from loki_desktop.ui.window.main_window import MainWindow


def run(services: Services, quick: str | None = None) -> int:
    """Open the window (or hand `quick` / "show" to the Loki already running)."""
    # warnings (a background task that failed, a server that cannot be watched) on stderr
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    lock = InstanceLock(services.data_home)
    name = socket_name(services.data_home)
    if not lock.acquire():
        QCoreApplication.instance() or QCoreApplication(sys.argv[:1])
        message: dict[str, Any] = (
            {"action": "quick", "text": quick} if quick else {"action": "show"}
        )
        if hand_off(name, message):
            return 0
        print(
            _("Loki est déjà ouvert mais ne répond pas. Fermez-le, puis relancez-le."),
            file=sys.stderr,
        )
        return 1
    try:
        app = QApplication.instance() or QApplication(sys.argv[:1])
        assert isinstance(app, QApplication)
        with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
            return runner.run(App(services, name).run(quick))
    finally:
        lock.release()


def install_qt_translations(app: QCoreApplication, lang: str) -> QTranslator | None:
    """Qt's own texts (dialog buttons, the file dialog, text field menus) in Loki's language:
    the qtbase_<lang> catalogue PySide6 ships (the bundle keeps fr and en). English is Qt's
    source language, so nothing is loaded for it. None when nothing was installed."""
    QLocale.setDefault(QLocale(lang))  # dates and numbers Qt formats, the file dialog's too
    if lang == "en":
        return None
    translator = QTranslator(app)
    folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    if not (translator.load(f"qtbase_{lang}", folder) and app.installTranslator(translator)):
        return None
    # installed last, asked first: only the few texts qtbase_fr lacks (ui/qt_gaps.py)
    gaps = QtGaps(translator)
    app.installTranslator(gaps)
    return translator


class App:
    """The running window session: what it shows and how it ends."""

    def __init__(self, services: Services, socket: str) -> None:
        self.services = services
        self.socket = socket
        self.window: MainWindow | None = None
        self.quick: QuickPrompt | None = None
        self.tray: LokiTray | None = None
        self.server: InstanceServer | None = None
        self.done = asyncio.Event()

    async def run(self, quick_question: str | None = None) -> int:
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        app.setApplicationName("Loki")
        app.setApplicationDisplayName("Loki")
        app.setDesktopFileName("loki-desktop")
        app.setWindowIcon(app_icon())
        app.setQuitOnLastWindowClosed(False)  # the tray may keep Loki alive; we decide
        install_qt_translations(app, language())
        try:
            runtime = Runtime(self.services)
        except StoreUnavailable as exc:  # history locked or unreadable: say it, touch nothing
            QMessageBox.critical(None, "Loki", str(exc))
            return 1
        collector = MainThreadCollector()
        collector.start()
        theme = Theme(str(runtime.settings.ui.get("theme", "system")))
        theme.apply(app)
        loop = asyncio.get_running_loop()
        for number in (signal.SIGINT, signal.SIGTERM):
            # Ctrl+C in the terminal, or a session ending: close cleanly (answers are kept)
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(number, self.done.set)
        try:
            started = self.start(runtime, theme)
            # once the window is painted and the agent's modules are in (not before: the
            # collection takes 10+ ms, and what it sets aside then includes those modules)
            started.add_done_callback(lambda _task: collector.freeze())
            if quick_question:
                self.quick_prompt().ask(quick_question)
            await self.done.wait()
        finally:
            await self.stop(runtime)
            collector.stop()
        return 0

    def start(self, runtime: Runtime, theme: Theme) -> asyncio.Task[None]:
        """Show the window; the returned task asks Ollama for its models and so on."""
        window = MainWindow(runtime, theme)
        self.window = window
        theme.changed.connect(self._on_theme)
        if tray_available():
            self.tray = LokiTray(
                on_quick=lambda: self.quick_prompt().present_new(),
                on_open=self.show_window,
                on_quit=self.done.set,
            )
            self.tray.show()
            window.keep_in_tray = True
        window.quit_requested.connect(self.done.set)
        self.server = InstanceServer(self.socket)
        self.server.message_received.connect(self.on_message)
        self.server.listen()
        window.show()
        return window.tasks.spawn(window.start())

    def quick_prompt(self) -> QuickPrompt:
        """The quick prompt, built at its first use (not before the window's first frame)."""
        if self.quick is None:
            assert self.window is not None, "the window comes first"
            self.quick = QuickPrompt(self.window.runtime, self.window.rendering.renderer)
            self.quick.open_requested.connect(self.open_conversation)
            self.quick.runner.finished.connect(self._on_quick_finished)
        return self.quick

    def _on_quick_finished(self, _reason: str) -> None:
        """The quick exchange is a saved conversation: list it at once, and show its new
        messages if the window has it open."""
        if self.window is not None and self.quick is not None and self.quick.conversation_id:
            self.window.sessions.reload_conversation(self.quick.conversation_id)

    def _on_theme(self) -> None:
        if self.quick is not None and self.window is not None:
            self.quick.set_renderer(self.window.rendering.renderer)

    async def stop(self, runtime: Runtime) -> None:
        if self.server is not None:
            self.server.close()
        if self.tray is not None:
            self.tray.hide()
        if self.quick is not None:
            await self.quick.shutdown()
            self.quick.close()
        if self.window is not None:
            self.window.save_state()
            await self.window.shutdown()
            self.window.keep_in_tray = False
            self.window.hide()
            self.window.deleteLater()
        await runtime.aclose()

    # --- requests from a second launch, the tray and the quick prompt -------------------

    def on_message(self, message: dict[str, Any]) -> None:
        action = message.get("action")
        if action == "quick" and isinstance(message.get("text"), str) and self.window:
            self.quick_prompt().ask(message["text"])
        else:
            self.show_window()

    def show_window(self) -> None:
        if self.window is None:
            return
        self.window.showNormal()
        self.window.raise_()
        self.window.activateWindow()

    def open_conversation(self, conversation_id: str) -> None:
        if self.window is None:
            return
        self.window.conversations.refresh()
        self.window.sessions.open_conversation(conversation_id)
        self.show_window()
