"""What the layout audit opens: the main window, every Réglages page, the dialogs, every card kind.

A scene is an async function under `@scene("name")` that gets a `Stage` (a window already
open in the stage's language, its services, the scripted servers) and returns the top-level
widgets to audit once laid out; its widgets are closed after. Long texts and names on purpose:
the audit is about what does not fit. To add a page, a dialog or a card kind: one function.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import socket
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import qasync
from PySide6.QtCore import QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QApplication, QWidget

from loki_desktop.app import build_services
from loki_desktop.core.events import ChangedFile
from loki_desktop.core.file_change import FileChange
from loki_desktop.core.i18n import set_language, set_typography
from loki_desktop.core.mcp.elicitation import ElicitationForm, FormField
from loki_desktop.core.mcp.host import ElicitationRequest, SamplingReport, SamplingRequest
from loki_desktop.core.services import Services
from loki_desktop.ui.changes.approval import ApprovalDialog
from loki_desktop.ui.changes.write_approval import WriteApprovalDialog
from loki_desktop.ui.chat.items import HarnessNote
from loki_desktop.ui.mcp.forms import ElicitationDialog, UrlDialog
from loki_desktop.ui.mcp.host import SamplingCard, SamplingDialog
from loki_desktop.ui.runtime import Runtime
from loki_desktop.ui.theme import Theme
from loki_desktop.ui.window.main_window import MainWindow
from tests.fakes.ollama_server import FakeOllama
from tests.ui.layout_audit import Problem, audit, walk

LONG_MODEL = "Qwen/Qwen2.5-Coder-7B-Instruct-GGUF:Q4_K_M"
LONG_TITLE = {
    "fr": "Une conversation au titre vraiment très long sur la migration de la base de données",
    "en": "A conversation with a really very long title about migrating the database schema",
}
PULL_HELD = 10  # layer lines a pull on the empty server sends before it waits
LONG_TEXT = {
    "fr": "Pouvez-vous relire ce module, expliquer pourquoi la fonction d'import échoue "
    "sur les fichiers volumineux, puis proposer une correction accompagnée de ses tests ? ",
    "en": "Could you review this module, explain why the import function fails on large "
    "files, then suggest a fix together with its tests? ",
}


@dataclass
class Stage:
    language: str
    services: Services
    window: MainWindow
    workspace: Path


# A scene yields (what it shows, the top-level widgets showing it), once or more.
Views = tuple[str, list[QWidget]]
Scene = Callable[[Stage], AsyncIterator[Views]]
# name -> (the scene, the server its window talks to: "models", "empty" or "offline")
SCENES: dict[str, tuple[Scene, str]] = {}


def scene(name: str, server: str = "models") -> Callable[[Scene], Scene]:
    def register(function: Scene) -> Scene:
        SCENES[name] = (function, server)
        return function

    return register


# --- the scenes -------------------------------------------------------------------------


@scene("window-offline", server="offline")
async def window_offline(stage: Stage) -> AsyncIterator[Views]:
    """No server answers: the banner and the welcome page."""
    yield "welcome", [stage.window]


@scene("window-first-run", server="empty")
async def window_first_run(stage: Stage) -> AsyncIterator[Views]:
    """A server with no model: the first-run page, its suggested models, then a pull
    started and cancelled (the list must come back whole)."""
    downloads = stage.window.downloads
    await wait_until(downloads.first_model.isVisible, "the first-run page")
    yield "suggestions", [stage.window]
    downloads.start("qwen3:8b")  # the fake holds it mid-way (PULL_HELD)
    await wait_until(lambda: downloads.panel.bar.value() > 0, "the download's progress")
    yield "downloading", [stage.window]
    downloads.panel.cancel_button.click()
    await wait_until(lambda: not downloads.panel.running, "the cancel")
    yield "after-cancel", [stage.window]


@scene("window-conversations")
async def window_conversations(stage: Stage) -> AsyncIterator[Views]:
    """0, 1 and 200 conversations with long titles in the sidebar, one open."""
    window = stage.window
    yield "none", [window]
    store = window.runtime.store
    first = store.create(LONG_TITLE[stage.language], str(stage.workspace))
    window.conversations.refresh()
    window.sessions.open_conversation(first)
    yield "one", [window]
    for number in range(199):
        store.create(f"{LONG_TITLE[stage.language]} {number}", str(stage.workspace))
    window.conversations.refresh()
    yield "200", [window]


@scene("settings")
async def settings(stage: Stage) -> AsyncIterator[Views]:
    """Every page of Réglages, with a long default model name, after a connection test."""
    dialog = stage.window.settings_opener.open()
    dialog.general.test_connection()
    await wait_until(lambda: dialog.general.test_button.isEnabled(), "the connection test")
    dialog.general.model.setCurrentText(LONG_MODEL)
    for page in dialog.PAGES:
        dialog.show_page(page)
        if page == "models":
            await wait_until(lambda: bool(dialog.models.names), "the installed models")
        yield page, [dialog]
    dialog.show_page("general")
    dialog.general.servers.add_server()  # a second server, OpenAI-compatible, being edited
    yield "general-two-servers", [dialog]
    dialog.close()


@scene("chat-cards")
async def chat_cards(stage: Stage) -> AsyncIterator[Views]:
    """Every card kind of a conversation, with long texts."""
    text = LONG_TEXT[stage.language]
    store = stage.window.runtime.store
    stage.window.sessions.open_conversation(store.create(LONG_TITLE[stage.language]))
    session = stage.window.sessions.current
    assert session is not None
    view = session.view
    view.add_user_message(text * 2)
    view.add_skill_badge("Débogage méthodique" if stage.language == "fr" else "Debugging")
    view.append_thinking(text * 3)
    view.append_text(text * 4 + "\n\n```python\nprint('x' * 120)\n```\n")
    view.add_tool_call("w1", "write_file", {"path": "src/app.js", "content": "x" * 68})
    change = FileChange("src/app.js", "added", "", 3, 0, content="a\nb\nc\n")
    view.set_tool_result("w1", True, "src/app.js (68)", "ok", change=change)
    command = "pytest -q" + " tests/" * 12
    view.add_tool_call("s1", "run_shell", {"command": command})
    view.tool_waiting(command)
    view.add_tool_call("r1", "read_file", {"path": "a/" * 40 + "very_long_name.py"})
    view.set_tool_result("r1", False, text, text * 3)
    view.add_check("src/" + "deep/" * 12 + "page.html", False, [(3, 7, text)] * 3)
    view.add_tool_call("s2", "run_shell", {"command": "make build"})
    changed = [ChangedFile("build/" + "deep/" * 8 + f"out{n}.o", "added") for n in range(12)]
    view.set_tool_result("s2", True, text, "ok", shell_changes=changed)
    view.add_notice(text)
    view.add_card(HarnessNote(text))
    report = SamplingReport(_sampling_request(text), answer=text * 2, model=LONG_MODEL)
    view.add_card(SamplingCard(report))
    view.add_error(text)
    view.end_answer()
    yield "cards", [stage.window]
    for card in (view.tool_card("w1"), view.tool_card("r1")):
        assert card is not None
        card.args_button.setChecked(True)  # the arguments and the result unfolded
        card.result_button.setChecked(True)
    yield "cards-unfolded", [stage.window]


@scene("problems")
async def problems(stage: Stage) -> AsyncIterator[Views]:
    """The problems panel with 0, 1 and 200 problems, long paths and messages."""
    window = stage.window
    window.problems_button.setChecked(True)
    yield "none", [window]
    panel = window.problems
    deep = stage.workspace / ("src/" + "module/" * 8)
    panel.set_file_problems(deep / "page.html", [(3, 7, LONG_TEXT[stage.language])])
    yield "one", [window]
    for number in range(40):
        lines = [(n, 1, LONG_TEXT[stage.language]) for n in range(5)]
        panel.set_file_problems(deep / f"file{number}.py", lines)
    yield "200", [window]


@scene("dialogs")
async def dialogs(stage: Stage) -> AsyncIterator[Views]:
    """The questions Loki asks in a dialog: a command, a write, a server's sampling."""
    text = LONG_TEXT[stage.language]
    command = "rm -rf build && " + "python -m pytest -q tests/ " * 6
    approval = ApprovalDialog(command, stage.workspace / ("deep/" * 10), stage.window)
    diff = "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n-old\n+" + "new " * 60 + "\n"
    change = FileChange("src/" + "deep/" * 10 + "app.py", "modified", diff, 1, 1)
    renderer = stage.window.rendering.renderer
    write = WriteApprovalDialog(change, stage.workspace, renderer, stage.window)
    sampling = SamplingDialog(_sampling_request(text), LONG_MODEL, stage.window)
    fields = (
        FormField("name", "string", "Nom du dépôt " * 3, text, required=True),
        FormField("private", "boolean", text),
        FormField("count", "integer", "Nombre", text, minimum=1, maximum=10),
    )
    form = ElicitationDialog(
        ElicitationForm(fields), title=text, message=text * 2, parent=stage.window
    )
    ask_url = ElicitationRequest(
        "srv", "Serveur " * 4, text, url="https://example.org/consent?" + "scope=read&" * 30
    )
    url = UrlDialog(ask_url, stage.window)
    chooser = stage.window.workspace_picker.open_chooser()  # Qt's own folder dialog
    shown = (
        ("folder", chooser),
        ("approval", approval),
        ("write", write),
        ("sampling", sampling),
        ("form", form),
        ("url", url),
    )
    for name, dialog in shown:
        dialog.show()
        yield name, [dialog]
        dialog.close()
        dialog.deleteLater()


def _sampling_request(text: str) -> SamplingRequest:
    return SamplingRequest("srv", "Serveur MCP " * 4, (("user", text * 3),), system_prompt=text)


# --- running them -----------------------------------------------------------------------


async def wait_until(predicate: Callable[[], object], what: str, within: float = 60.0) -> None:
    end = time.monotonic() + within
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError(f"audit: waited in vain for {what}")
        await asyncio.sleep(0.01)


async def settle(tops: list[QWidget], within: float = 30.0) -> None:
    """Until the layouts stop moving: two passes of the loop see the same geometries."""

    def snapshot() -> list[tuple[int, int, int, int]]:
        return [w.geometry().getRect() for top in tops for w, _ in walk(top)]

    before: list[tuple[int, int, int, int]] | None = None
    end = time.monotonic() + within
    while time.monotonic() < end:
        await asyncio.sleep(0.02)
        now = snapshot()
        if now == before:
            return
        before = now
    raise AssertionError("audit: the layout never settled")


@contextlib.asynccontextmanager
async def opened(language: str, host: str, home: Path) -> AsyncIterator[Stage]:
    """A main window as the app builds it, in `language`, over its own data folder."""
    set_language(language)
    set_typography(True)
    folder = Path(tempfile.mkdtemp(prefix=f"{language}-", dir=home))
    os.environ["LOKI_HOME"] = str(folder)
    workspace = folder / "workspace"
    workspace.mkdir()
    services = build_services()
    settings = services.settings.load()
    settings.host, settings.model, settings.workspace = host, LONG_MODEL, str(workspace)
    services.settings.save(settings)
    runtime = Runtime(services)
    window = MainWindow(runtime, Theme("light"))
    window.show()
    await window.start()
    try:
        yield Stage(language, services, window, workspace)
    finally:
        await window.shutdown()
        window.keep_in_tray = False
        window.close()
        await runtime.aclose()


async def run_group(
    names: list[str], language: str, host: str, home: Path, warnings: list[str]
) -> list[Problem]:
    """The scenes `names` (they share one window) in `language`."""
    found: list[Problem] = []
    async with opened(language, host, home) as stage:
        await settle([stage.window])
        for name in names:
            async for shown, tops in SCENES[name][0](stage):
                await settle(tops)
                where = f"{name}/{shown} {language}"
                found += [p for top in tops for p in audit(top, where)]
                found += [Problem(where, "qt-warning", w, "", "") for w in warnings]
                warnings.clear()
    return found


# what the offscreen platform says that the real ones do not (it has no window manager)
OFFSCREEN_NOISE = re.compile(r"This plugin does not support (propagateSizeHints|raise)\(\)")


def qt_warnings(into: list[str]) -> None:
    """Qt's warnings (a layout that cannot be met, a style sheet it cannot read) go in `into`."""

    def handler(kind: QtMsgType, _context: object, message: str) -> None:
        if kind != QtMsgType.QtDebugMsg and not OFFSCREEN_NOISE.search(message):
            into.append(message)

    qInstallMessageHandler(handler)


def run_scenes(languages: list[str], names: list[str] | None, home: Path) -> list[Problem]:
    warnings: list[str] = []
    qt_warnings(warnings)
    app = QApplication.instance() or QApplication([])
    app.setQuitOnLastWindowClosed(False)
    Theme("light").apply(app)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    chosen = names or list(SCENES)
    found: list[Problem] = []
    with (
        FakeOllama(models=(LONG_MODEL, "qwen2.5-coder:7b", "llama3.2:3b")) as models,
        FakeOllama(models=()) as empty,
    ):
        held = threading.Event()  # a pull on the empty server stops mid-way until the end
        empty.pull.pause_after, empty.pull.gate = PULL_HELD, held
        hosts = {"models": models.url, "empty": empty.url, "offline": _offline()}
        for language in languages:
            for server, host in hosts.items():
                group = [name for name in chosen if SCENES[name][1] == server]
                if group:
                    run = run_group(group, language, host, home, warnings)
                    found += loop.run_until_complete(run)
        held.set()
    # qasync's executor runs asyncio.to_thread in QThreads: ended before Qt goes
    loop.run_until_complete(loop.shutdown_default_executor())
    loop.close()
    return found


def _offline() -> str:
    """An address where nothing listens (a port opened and closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"
