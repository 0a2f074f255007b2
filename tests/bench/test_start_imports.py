"""What the window imports before its first frame: none of the agent stack (see the Start
figure of `make bench` and docs/performance.md). The stack is imported after the window is
shown, in a worker thread (Runtime.load), or at first use."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import PYTHON, REPO, cli_env
from tests.fakes.ollama_server import FakeOllama

# Imported after the first frame: ~300 ms together on the bench machine.
AFTER_FIRST_FRAME = (
    "httpx",
    "pydantic",
    "mcp",
    "keyring",
    "watchfiles",
    "markdown_it",
    "pygments",
    "json_repair",
    "loki_desktop.core.agent",
    "loki_desktop.core.assembly",
    "loki_desktop.core.llm.ollama",
    "loki_desktop.core.mcp.service",
    "loki_desktop.core.checks.registry",
    "loki_desktop.core.watch",
)

SCRIPT = f"""
import json, sys
from loki_desktop import app, cli
from loki_desktop.ui import main
cli.build_parser()  # every start builds it, the window's too
app.build_services()
print(json.dumps([name for name in {AFTER_FIRST_FRAME!r} if name in sys.modules]))
"""


def test_the_window_module_and_the_cli_parser_leave_the_agent_stack_unimported(
    tmp_path: Path,
) -> None:
    done = subprocess.run(
        [PYTHON, "-c", SCRIPT],
        cwd=REPO,
        env=cli_env(tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(done.stdout) == []


def test_runtime_load_imports_what_the_first_frame_left_out() -> None:
    script = (
        "import asyncio, json, sys\n"
        "from loki_desktop.ui import runtime\n"
        "asyncio.run(asyncio.to_thread(runtime._import_agent_modules))\n"
        f"print(json.dumps([n for n in {AFTER_FIRST_FRAME!r} if n not in sys.modules]))\n"
    )
    done = subprocess.run(
        [PYTHON, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60, check=True
    )
    # keyring (first secret), mcp (first server started) stay lazy even then
    assert json.loads(done.stdout) == ["mcp", "keyring"]


# Imported at the first turn (Runtime.load_agent), not by a window that only listed its models.
FIRST_TURN = (
    "pydantic",
    "markdown_it",
    "json_repair",
    "PIL",
    "loki_desktop.core.agent",
    "loki_desktop.core.assembly",
    "loki_desktop.core.mcp.service",
    "loki_desktop.core.checks.registry",
)

# The window as `loki-desktop` starts it (bench/window_probe.py), which says READY once its
# model list is filled; then the modules it holds are printed and the process ends.
WINDOW = f"""
import json, os, sys
from bench import window_probe

def report(what):
    if what == "READY":
        loaded = [n for n in {(*FIRST_TURN, "loki_desktop.core.llm.ollama")!r} if n in sys.modules]
        print(json.dumps(loaded), flush=True)
        os._exit(0)

window_probe._report = report
window_probe.run_app()
"""


def test_a_window_that_listed_its_models_has_not_imported_the_agent(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    with FakeOllama() as ollama:
        (home / "settings.json").write_text(json.dumps({"host": ollama.url}))
        done = subprocess.run(
            [PYTHON, "-c", WINDOW],
            cwd=REPO,
            env=cli_env(home, QT_QPA_PLATFORM="offscreen"),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    # the server's client is there (the list came through it); the agent's stack is not
    assert json.loads(done.stdout.strip().splitlines()[-1]) == ["loki_desktop.core.llm.ollama"]
