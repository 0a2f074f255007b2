"""With a real tray host (Xvfb + trayer): the icon, its menu, and closing keeps Loki running."""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import PYTHON, cli_env
from tests.fakes.ollama_server import FakeOllama

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (sys.platform.startswith("linux") and shutil.which("Xvfb") and shutil.which("trayer")),
        reason="needs Xvfb and a tray host (Debian packages xvfb, trayer)",
    ),
]

# Runs in the child: the app as `ui.main.run` starts it, then the tray menu is used. Every
# step waits for what it expects (generously: the machine may be loaded), never a fixed time.
CHILD = """
import asyncio, json, sys, time
import qasync
from PySide6.QtWidgets import QApplication, QSystemTrayIcon
from loki_desktop.app import build_services
from loki_desktop.ui.main import App
from loki_desktop.ui.single_instance import socket_name

async def until(condition, limit_s=30.0):
    deadline = time.monotonic() + limit_s
    while not condition() and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    return bool(condition())

async def drive(loki):
    running = asyncio.ensure_future(loki.run())
    await until(lambda: loki.window is not None and loki.window.isVisible())
    seen = {"tray": loki.tray is not None}
    if loki.tray is not None:
        seen["icon_visible"] = await until(loki.tray.icon.isVisible)
        seen["menu"] = [a.text() for a in loki.tray.menu.actions() if not a.isSeparator()]
        loki.window.close()
        seen["hidden_after_close"] = await until(lambda: not loki.window.isVisible())
        seen["running_after_close"] = not loki.done.is_set()
        loki.tray.quick_action.trigger()
        seen["quick_shown"] = await until(loki.quick.isVisible)
        # still running: the close above did not end the app on its way
        seen["running_after_close"] &= not loki.done.is_set()
        loki.tray.open_action.trigger()
        seen["window_back"] = await until(loki.window.isVisible)
        loki.tray.quit_action.trigger()
    else:
        loki.done.set()
    await running
    print(json.dumps(seen), flush=True)

app = QApplication(sys.argv[:1])
# the tray host may still be claiming the tray when we start: wait for it, as a session would
deadline = time.monotonic() + 30
while not QSystemTrayIcon.isSystemTrayAvailable() and time.monotonic() < deadline:
    app.processEvents()
    time.sleep(0.05)
services = build_services()
loki = App(services, socket_name(services.data_home))
with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
    runner.run(drive(loki))
"""


def free_display(xvfb: subprocess.Popen[bytes], announced: int) -> str:
    """The display number Xvfb picked (`-displayfd`: free whoever else runs Xvfb, other test
    workers included), read once it is ready to take clients."""
    with os.fdopen(announced, "rb") as pipe:
        ready, _, _ = select.select([pipe], [], [], 30)
        assert ready, "Xvfb did not start"
        number = pipe.readline().strip()
    assert number, f"Xvfb exited ({xvfb.poll()}) before choosing a display"
    return f":{number.decode()}"


@pytest.fixture
def tray_display(tmp_path: Path) -> Iterator[str]:
    announced, announce = os.pipe()
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", str(announce), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(announce,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(announce)
    tray = None
    try:
        display = free_display(xvfb, announced)
        tray = subprocess.Popen(
            ["trayer", "--edge", "top", "--align", "right", "--height", "24"],
            env={"DISPLAY": display, "PATH": "/usr/bin:/bin"},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        yield display  # the child waits for the tray host to claim the tray
    finally:
        for process in (tray, xvfb):
            if process is not None:
                process.terminate()
                process.wait(timeout=10)


def test_tray_icon_menu_and_close_to_tray(loki_home: Path, tray_display: str) -> None:
    with FakeOllama() as ollama:
        (loki_home / "settings.json").write_text(json.dumps({"host": ollama.url}))
        env = cli_env(loki_home, DISPLAY=tray_display, QT_QPA_PLATFORM="xcb")
        env.pop("WAYLAND_DISPLAY", None)
        child = subprocess.run(
            [PYTHON, "-c", CHILD], env=env, capture_output=True, text=True, timeout=120
        )
    assert child.returncode == 0, child.stderr
    seen = json.loads(child.stdout.strip().splitlines()[-1])
    assert seen == {
        "tray": True,
        "icon_visible": True,
        "menu": ["Question rapide…", "Ouvrir Loki", "Quitter"],
        "hidden_after_close": True,
        "running_after_close": True,
        "quick_shown": True,
        "window_back": True,
    }
