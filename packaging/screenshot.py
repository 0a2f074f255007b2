"""Screenshots of the real window under Xvfb, to look at the result before calling it done.

    .venv/bin/python packaging/screenshot.py [--out build/screenshots] [--theme light|dark]
                                             [--lang fr|en]

Starts Xvfb (unless a DISPLAY is given with --display), a scripted Ollama server
(tests/fakes/demo_conversation.py) and then, each in its own process, the real app:

    main-window.png           a full conversation: skill badge, tool cards, a failing then
                              passing check, the Markdown answer
    settings-mcp.png          the settings dialog on the MCP page (two servers connected)
    quick-prompt.png          the quick prompt with a streamed answer, over the window
    main-window-reopened.png  the same conversation after a restart (read from history)
    main-window-offline.png   no Ollama at the host: the window says so and how to fix it
    thinking-live.png         a thinking model reasoning: the Réflexion block open, counting
    thinking-done.png         its answer: the block folded with its duration; an image sent
                              to a vision model shown as a thumbnail; one waiting in the composer
    model-picker.png          the model list open, each model with its capability marks
    settings-reflexion.png    Réglages › Général: the Réflexion and tool-mode rows
    main-window-1024x640.png  the reopened conversation on a 1024×640 screen (compact top bar)
    main-window-800x560.png   the same at the smallest size the window supports
    approval.png              a run_shell command waiting for approval (EN ATTENTE)

With --screen WxH (1280x800, 1024x640: a laptop), on an Xvfb of that size, the window and
the dialogs placed by the app itself (no geometry set by this script):

    main-window-WxH.png       the demo conversation
    settings-WxH.png          Réglages › Général as it first opens (its buttons on screen)
    first-run-WxH.png         a server with no model: the first-run choice of a model

--lang picks the language of the window (LANGUAGE for the app's processes);
each file name then ends with "-<lang>" unless the language is French (the README's).

Debian packages: xvfb xauth libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0
libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xkb1 libxkbcommon-x11-0 libegl1
libgl1 libfontconfig1 fonts-dejavu-core.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SCREEN = (1440, 1200)
SCENES = ("live", "reopen", "small", "offline", "models")
LAPTOP_SCENES = ("laptop", "first-run")
LANGUAGES = ("fr", "en")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "build" / "screenshots")
    parser.add_argument("--theme", choices=("light", "dark"), default="light")
    parser.add_argument("--lang", choices=LANGUAGES, default="fr")
    parser.add_argument("--display", help="use this X display instead of starting Xvfb")
    parser.add_argument("--screen", help="a laptop's screen, e.g. 1280x800 (its own scenes)")
    parser.add_argument("--scene", choices=SCENES + LAPTOP_SCENES, help=argparse.SUPPRESS)
    parser.add_argument("--home", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.scene:
        return run_scene(args.scene, args.out, args.home, args.theme)
    os.environ["LOKI_SHOT_SUFFIX"] = "" if args.lang == "fr" else f"-{args.lang}"
    if args.screen:
        os.environ["LOKI_SHOT_SCREEN"] = args.screen
    args.out.mkdir(parents=True, exist_ok=True)
    screen = tuple(int(n) for n in args.screen.split("x")) if args.screen else SCREEN
    with contextlib.ExitStack() as stack:
        display = args.display or stack.enter_context(xvfb(screen))
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="loki-shots-")))
        home = work / "home"
        for scene in LAPTOP_SCENES if args.screen else SCENES:
            env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(REPO))
            # gettext reads LANGUAGE first; C.UTF-8 because a build box may have no fr/en
            # locale installed (Qt would warn and fall back to it anyway)
            env.update(LANGUAGE=args.lang, LC_ALL="C.UTF-8")
            env.pop("WAYLAND_DISPLAY", None)
            command = [sys.executable, __file__, "--scene", scene, "--out", str(args.out)]
            shared = scene in ("live", "reopen", "small")  # the conversation of the first
            command += ["--home", str(home if shared else work / scene)]
            command += ["--theme", args.theme]
            print(f"scene {scene}…", flush=True)
            done = subprocess.run(command, env=env, timeout=180, check=False)
            if done.returncode != 0:
                print(f"scene {scene} failed ({done.returncode})", file=sys.stderr)
                return 1
    for png in sorted(args.out.glob("*.png")):
        print(png)
    return 0


@contextlib.contextmanager
def xvfb(screen: tuple[int, ...] = SCREEN) -> Iterator[str]:
    if shutil.which("Xvfb") is None:
        sys.exit("Xvfb is missing: apt-get install xvfb (see this script's docstring)")
    number = next(n for n in range(90, 200) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    display = f":{number}"
    process = subprocess.Popen(
        ["Xvfb", display, "-screen", "0", f"{screen[0]}x{screen[1]}x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while not Path(f"/tmp/.X11-unix/X{number}").exists():
            if time.monotonic() > deadline or process.poll() is not None:
                sys.exit("Xvfb did not start")
            time.sleep(0.05)
        yield display
    finally:
        process.terminate()
        process.wait(timeout=10)


# --- one scene, in its own process -------------------------------------------------------


def run_scene(scene: str, out: Path, home: Path, theme: str) -> int:
    sys.path.insert(0, str(REPO))
    os.environ["LOKI_HOME"] = str(home)
    # a private keyring for the demo's secrets: never the user's own
    os.environ["PYTHON_KEYRING_BACKEND"] = "tests.fakes.memory_keyring.FileKeyring"
    os.environ["LOKI_TEST_KEYRING_FILE"] = str(home.parent / f"{home.name}-keyring.json")
    home.mkdir(parents=True, exist_ok=True)
    workspace = home.parent / "projet-ventes"
    workspace.mkdir(exist_ok=True)

    import qasync
    from PySide6.QtWidgets import QApplication

    from loki_desktop.app import build_services, choose_language
    from loki_desktop.ui.main import App
    from loki_desktop.ui.single_instance import socket_name
    from tests.fakes.demo_conversation import SALES_CSV, reply_for
    from tests.fakes.ollama_server import FakeOllama

    (workspace / "ventes.csv").write_text(SALES_CSV, encoding="utf-8")
    server = (
        FakeOllama(models=(), cards=model_cards())
        if scene == "models"
        else FakeOllama(models=())  # no model at all: the first-run page
        if scene == "first-run"
        else FakeOllama()
    ).start()
    server.script(*([reply_for] * 40 if scene != "models" else thinking_replies()))
    host = server.url if scene != "offline" else closed_port_url()
    choose_language()  # as the app does at start: the setting, else LANGUAGE (--lang)
    services = build_services()
    settings = services.settings.load()
    settings.host = host
    settings.workspace = str(workspace)
    settings.recent_workspaces = [str(workspace)]
    settings.ui.setdefault("theme", theme)
    services.settings.save(settings)

    app = QApplication(sys.argv[:1])
    loki = App(services, socket_name(services.data_home))
    driver = {
        "live": live,
        "reopen": reopen,
        "small": small,
        "offline": offline,
        "models": models,
        "laptop": laptop,
        "first-run": first_run,
    }[scene]

    async def both() -> None:
        task = asyncio.ensure_future(loki.run())
        try:
            await wait_for(lambda: loki.window is not None and loki.window.isVisible())
            assert loki.window is not None
            if scene not in LAPTOP_SCENES:  # on a laptop, where the app itself puts it
                loki.window.setGeometry(80, 40, 1280, 1120)
            await driver(loki, out)
        finally:
            loki.done.set()
            await task

    try:
        with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
            runner.run(both())
    finally:
        server.stop()
    return 0


async def live(loki: Any, out: Path) -> None:
    from tests.fakes.demo_conversation import QUESTION, QUICK_QUESTION

    window = loki.window
    await wait_for(lambda: window.model_picker.isEnabled())
    window.composer.set_text(QUESTION)
    window.composer.submit()
    await wait_for(
        lambda: window.sessions.current is not None and not window.sessions.current.runner.busy, 60
    )
    await settle()
    window.sessions.current.view.scroll_to_bottom()
    await settle()
    save(screen_region(window), out / "main-window.png")

    await prepare_mcp(loki)
    window.settings_opener.open()
    dialog = await wait_for_value(lambda: find_dialog("SettingsDialog"))
    dialog.setGeometry(140, 60, 1000, 780)
    dialog.show_page("mcp")
    await wait_for(lambda: all_connected(loki), 30)
    card = dialog.mcp.cards["outils-demo"]
    card.test_button.click()  # the Test button lists the tools it found
    await wait_for(lambda: card.testing is None and not card.progress.running, 30)  # any language
    await settle(0.5)
    save(screen_region(dialog), out / "settings-mcp.png")
    dialog.reject()
    await settle()

    quick = loki.quick_prompt()  # built at its first use
    quick.ask(QUICK_QUESTION)
    await wait_for(lambda: not quick.runner.busy and quick.open_button.isEnabled(), 30)
    await settle()
    save(screen_region(window, quick), out / "quick-prompt.png")


async def reopen(loki: Any, out: Path) -> None:
    window = loki.window
    await wait_for(lambda: window.sessions.current is not None)
    await settle(0.6)
    window.sessions.current.view.scroll_to_bottom()
    await settle()
    save(screen_region(window), out / "main-window-reopened.png")


async def small(loki: Any, out: Path) -> None:
    """The reopened conversation on small screens: the top bar collapses, nothing is cut."""
    window = loki.window
    await wait_for(lambda: window.sessions.current is not None and window.model_picker.isEnabled())
    for width, height in ((1024, 640), (800, 560)):
        window.setGeometry(80, 40, width, height)
        await wait_for(lambda w=width: window.width() == w)
        await settle(0.6)
        window.sessions.current.view.scroll_to_bottom()
        await settle()
        save(screen_region(window), out / f"main-window-{width}x{height}.png")
    await approval(loki, out)


async def laptop(loki: Any, out: Path) -> None:
    """The demo conversation, then Réglages as it first opens, on a laptop's screen."""
    from tests.fakes.demo_conversation import QUESTION

    window = loki.window
    size = os.environ["LOKI_SHOT_SCREEN"]
    await wait_for(lambda: window.model_picker.isEnabled())
    window.composer.set_text(QUESTION)
    window.composer.submit()
    await wait_for(
        lambda: window.sessions.current is not None and not window.sessions.current.runner.busy, 60
    )
    await settle(0.6)
    window.sessions.current.view.scroll_to_bottom()
    await settle()
    save(screen_region(window), out / f"main-window-{size}.png")
    dialog = window.settings_opener.open()
    await settle(0.8)
    save(screen_region(dialog), out / f"settings-{size}.png")
    dialog.reject()
    await settle()


async def first_run(loki: Any, out: Path) -> None:
    """A server with no model: the first-run page under the no-model banner."""
    window = loki.window
    size = os.environ["LOKI_SHOT_SCREEN"]
    await wait_for(lambda: window.downloads.first_model.isVisible(), 20)
    await settle(0.8)
    save(screen_region(window), out / f"first-run-{size}.png")


async def approval(loki: Any, out: Path) -> None:
    """A command waiting for the person: the dialog, and the card saying EN ATTENTE."""
    from tests.fakes.demo_conversation import APPROVAL_QUESTION

    window = loki.window
    window.setGeometry(80, 40, 1024, 640)
    window.composer.set_text(APPROVAL_QUESTION)
    window.composer.submit()
    approver = window.sessions.current.approver
    await wait_for(lambda: approver.dialog is not None and approver.dialog.isVisible(), 30)
    await settle(0.6)
    save(screen_region(window, approver.dialog), out / "approval.png")
    approver.dialog.deny_button.click()
    await wait_for(lambda: not window.sessions.current.runner.busy, 30)


async def offline(loki: Any, out: Path) -> None:
    window = loki.window
    await wait_for(lambda: window.banner.isVisible(), 20)
    await settle()
    save(screen_region(window), out / "main-window-offline.png")


def model_cards() -> dict[str, Any]:
    from tests.fakes.ollama_server import ModelCard

    return {
        "qwen3:8b": ModelCard.thinker(parameter_size="8.2B"),
        "gemma3:4b": ModelCard.no_tools("vision", parameter_size="4.3B"),
        "gpt-oss:20b": ModelCard.thinker("low", "medium", "high", parameter_size="20.9B"),
        "qwen2.5-coder:7b": ModelCard(),
        "nomic-embed-text:latest": ModelCard.embedding(),
    }


THINKING = (
    "L'utilisateur veut savoir si 1 001 est premier. Je teste les petits diviseurs : "
    "il n'est pas pair, la somme de ses chiffres vaut 2 donc pas divisible par 3, il ne "
    "finit ni par 0 ni par 5. Essayons 7 : 7 × 143 = 1 001. Donc 1 001 n'est pas premier. "
    "Et 143 = 11 × 13, d'où 1 001 = 7 × 11 × 13. Je vérifie : 7 × 11 = 77, 77 × 13 = 1 001. "
    "C'est juste ; je réponds avec la décomposition."
)
ANSWER = (
    "**Non**, 1 001 n'est pas premier :\n\n1 001 = 7 × 11 × 13\n\n"
    "C'est d'ailleurs le produit des trois nombres premiers consécutifs 7, 11 et 13."
)


def thinking_replies() -> list[Any]:
    from tests.fakes.ollama_server import Reply

    words = [word + " " for word in THINKING.split(" ")]
    return [
        Reply.thinks(words, *[w + " " for w in ANSWER.split(" ")], token_delay=0.12),
        Reply.text(
            "Je vois un **schéma en trois blocs** reliés par des flèches : l'entrée, "
            "le traitement et la sortie.",
            token_delay=0.05,
        ),
    ]


def demo_png(path: Path) -> Path:
    """A small diagram-like picture to attach (three boxes)."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QColor, QImage, QPainter, QPen

    image = QImage(480, 300, QImage.Format.Format_RGB32)
    image.fill(QColor("#FBFAF5"))
    painter = QPainter(image)
    painter.setPen(QPen(QColor("#16181A"), 6))
    for index, colour in enumerate(("#1B7F4B", "#F2B705", "#C8102E")):
        painter.fillRect(30 + index * 150, 100, 120, 100, QColor(colour))
        painter.drawRect(30 + index * 150, 100, 120, 100)
    painter.drawLine(150, 150, 180, 150)
    painter.drawLine(300, 150, 330, 150)
    painter.setPen(QColor("#16181A"))
    painter.drawText(image.rect().adjusted(0, 20, 0, 0), Qt.AlignmentFlag.AlignHCenter, "schema")
    painter.end()
    image.save(str(path))
    return path


async def models(loki: Any, out: Path) -> None:
    """A thinking model while it reasons and once it answered; an image to a vision model."""
    window = loki.window
    await wait_for(lambda: window.model_picker.count() == 4)
    picker = window.model_picker
    picker.setCurrentIndex(picker.findData("qwen3:8b"))
    window.composer.set_text("1 001 est-il un nombre premier ?")
    window.composer.submit()
    await wait_for(
        lambda: window.sessions.current is not None and window.sessions.current.view.thinking_block
    )
    await settle(3.2)
    save(screen_region(window), out / "thinking-live.png")
    await wait_for(lambda: not window.sessions.current.runner.busy, 60)

    picker.setCurrentIndex(picker.findData("gemma3:4b"))
    picture = demo_png(Path(os.environ["LOKI_HOME"]) / "schema.png")
    await window.composer.attachments.attach_paths([picture])
    window.composer.set_text("Que montre ce schéma ?")
    window.composer.submit()
    await wait_for(lambda: not window.sessions.current.runner.busy, 60)
    await window.composer.attachments.attach_paths([picture])  # one waiting in the composer
    await settle()
    window.sessions.current.view.scroll_to_bottom()
    await settle()
    save(screen_region(window), out / "thinking-done.png")

    picker.showPopup()
    await settle()
    save(screen_region(window), out / "model-picker.png")
    picker.hidePopup()

    picker.setCurrentIndex(picker.findData("gpt-oss:20b"))
    dialog = window.settings_opener.open()
    dialog.setGeometry(140, 60, 1000, 780)
    await settle(0.6)
    save(screen_region(dialog), out / "settings-reflexion.png")
    dialog.reject()
    await settle()


async def prepare_mcp(loki: Any) -> None:
    """Turn on the bundled fetch server and a custom one (the echo server of the tests)."""
    from tests.fakes.mcp_servers import script

    service = loki.window.runtime.mcp
    service.enable("fetch")
    with contextlib.suppress(Exception):
        service.add_stdio(
            "outils-demo", [sys.executable, script("echo")], label="Outils de démo", enabled=True
        )
    await service.manager.prepare()


def all_connected(loki: Any) -> bool:
    manager = loki.window.runtime.mcp.manager
    enabled = set(manager.enabled_ids)
    return all(s.state == "connected" for s in manager.statuses() if s.id in enabled)


# --- helpers ------------------------------------------------------------------------------


def current(window: Any) -> Any:
    """The conversation on screen (None: the welcome page)."""
    return window.sessions.current


def turn_done(window: Any) -> bool:
    """A conversation is on screen and its turn has ended."""
    return current(window) is not None and not current(window).runner.busy


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


async def wait_for(predicate: Callable[[], object], within: float = 15.0) -> None:
    end = time.monotonic() + within
    while not predicate():
        if time.monotonic() > end:
            raise TimeoutError("the window never reached the expected state")
        await asyncio.sleep(0.05)


async def wait_for_value(get: Callable[[], Any], within: float = 15.0) -> Any:
    await wait_for(lambda: get() is not None, within)
    return get()


async def settle(seconds: float = 0.4) -> None:
    """Let layouts, repaints and the X server catch up before a grab (the loop is Qt's)."""
    await asyncio.sleep(seconds)


def find_dialog(name: str) -> Any:
    from PySide6.QtWidgets import QApplication

    for widget in QApplication.topLevelWidgets():
        if widget.objectName() == name and widget.isVisible():
            return widget
    return None


def screen_region(*widgets: Any) -> Any:
    """What the X screen shows over these windows (one rectangle around all of them)."""
    from PySide6.QtGui import QGuiApplication

    rect = widgets[0].frameGeometry()
    for widget in widgets[1:]:
        rect = rect.united(widget.frameGeometry())
    screen = QGuiApplication.primaryScreen()
    rect = rect.intersected(screen.geometry())  # what a person sees of it
    return screen.grabWindow(0, rect.x(), rect.y(), rect.width(), rect.height())


def save(pixmap: Any, path: Path) -> None:
    path = path.with_name(path.stem + os.environ.get("LOKI_SHOT_SUFFIX", "") + path.suffix)
    if not pixmap.save(str(path)):
        raise RuntimeError(f"could not write {path}")
    print(f"  {path.name}: {pixmap.width()}x{pixmap.height()}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
