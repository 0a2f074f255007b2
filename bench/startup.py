"""Start, memory and idle CPU of the real app, against a bare PySide6 window in the same run.

Each start is a fresh process (bench/window_probe.py) on the offscreen Qt platform, with
a fresh data folder and the scripted Ollama server, so the model list fills as it would.
Start is measured from the parent's clock just before the spawn to the child's clock when
its window's first frame is done; the bare window and Loki alternate, so both see the same
machine. The budgeted start is a first launch (the welcome page); a returning user's start,
which reopens the last conversation (a page of 40 rendered messages), is reported beside
it. After the start, the same Loki process is left idle: its resident memory (VmRSS) is
read, then its CPU time over a few idle seconds, from /proc (Linux only). The bare
window's memory is read the same way, as the floor Python and Qt set.

Bytecode: this repository's environment sets PYTHONDONTWRITEBYTECODE, so every run would
compile the app's sources again (~20 ms), which no installed copy does (pip and the
bundle ship .pyc files). The children get a bytecode cache of the bench's own
(bench/results/pycache), filled by one discarded warm-up start of each.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.figures import Figure, median_of
from tests.fakes.ollama_server import FakeOllama

REPO = Path(__file__).resolve().parent.parent
PYCACHE = Path(__file__).resolve().parent / "results" / "pycache"
MODEL = "qwen2.5-coder:7b"
RUNS = 9  # starts of each (bare and Loki, alternating)
SETTLE_S = 1.0  # after the model list is filled, before reading the memory
IDLE_S = 2.5  # CPU time is read over this much idle time, per run
WORKSPACE_RUNS = 2
WORKSPACE_IDLE_S = 5.0
WORKSPACE_FILES = 500
RETURNING_RUNS = 5
HISTORY_MESSAGES = 1_000
START_TIMEOUT_S = 30.0
LOG = "probe-stderr.log"
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class BareRun:
    shown_s: float
    rss_mb: float


@dataclass
class AppRun:
    shown_s: float
    ready_s: float
    rss_mb: float
    cpu_s: float  # CPU time used while idle
    idle_s: float  # wall time it was idle


def measure() -> list[Figure]:
    if not Path("/proc/self/stat").exists():
        raise RuntimeError("the Start and Memory figures read /proc: Linux only")
    with tempfile.TemporaryDirectory() as tmp, FakeOllama() as ollama:
        root = Path(tmp)
        workspace = _workspace(root / "ws")
        history = _history(root / "returning")
        _start_bare(root)  # warm-up: fills the bytecode cache, not counted
        _run_app(root, ollama.url, idle=0.0)
        bare: list[BareRun] = []
        app: list[AppRun] = []
        for index in range(RUNS):
            print(f"  start {index + 1}/{RUNS}", file=sys.stderr, flush=True)
            bare.append(_start_bare(root, settle=SETTLE_S))
            app.append(_run_app(root, ollama.url, idle=IDLE_S))
        with_ws = [
            _run_app(root, ollama.url, idle=WORKSPACE_IDLE_S, workspace=workspace)
            for _ in range(WORKSPACE_RUNS)
        ]
        print("  returning user's starts", file=sys.stderr, flush=True)
        returning_bare: list[float] = []
        returning: list[AppRun] = []
        for _ in range(RETURNING_RUNS):
            returning_bare.append(_start_bare(root).shown_s)
            returning.append(_run_app(root, ollama.url, idle=0.0, history=history))
    return _figures(bare, app, with_ws, returning_bare, returning)


def _figures(
    bare: list[BareRun],
    app: list[AppRun],
    with_ws: list[AppRun],
    returning_bare: list[float],
    returning: list[AppRun],
) -> list[Figure]:
    ratios = [a.shown_s / b.shown_s for a, b in zip(app, bare, strict=True)]
    returning_ratios = [a.shown_s / b for a, b in zip(returning, returning_bare, strict=True)]
    idle = sum(r.idle_s for r in app)
    ws_idle = sum(r.idle_s for r in with_ws)
    cpu = sum(r.cpu_s for r in app) / idle * 100
    ws_cpu = sum(r.cpu_s for r in with_ws) / ws_idle * 100
    runs = len(app)
    return [
        Figure(
            "Start",
            "bare PySide6 window, first frame",
            median_of(b.shown_s for b in bare) * 1000,
            "ms",
            None,
            runs=runs,
        ),
        Figure(
            "Start",
            "Loki main window, first frame",
            median_of(a.shown_s for a in app) * 1000,
            "ms",
            None,
            runs=runs,
        ),
        Figure(
            "Start",
            "Loki / bare PySide6 window",
            median_of(ratios),
            "x",
            2.5,
            runs=runs,
            note="median of the per-pair ratios",
        ),
        Figure(
            "Start",
            "Loki ready: models listed",
            median_of(a.ready_s for a in app) * 1000,
            "ms",
            500.0,  # issue 39: launch to usable within half a second
            runs=runs,
            note="window shown, the server's client imported, Ollama asked (the agent: at "
            "the first turn)",
        ),
        Figure(
            "Start",
            "returning user: last conversation reopened",
            median_of(a.shown_s for a in returning) * 1000,
            "ms",
            None,
            runs=len(returning),
            note=f"{median_of(returning_ratios):.2f}x the bare window; "
            f"{HISTORY_MESSAGES:,} messages, the last page rendered",
        ),
        Figure(
            "Memory",
            "bare PySide6 window, resident memory",
            median_of(b.rss_mb for b in bare),
            "MB",
            None,
            runs=runs,
            note="the floor Python and Qt set",
        ),
        Figure(
            "Memory",
            "resident memory, window open and idle",
            median_of(r.rss_mb for r in app),
            "MB",
            120.0,  # issue 39 (MiB: VmRSS / 1024)
            runs=runs,
            note=f"VmRSS {SETTLE_S:g} s after the model list",
        ),
        Figure(
            "Memory",
            "idle CPU, no workspace",
            cpu,
            "% of a core",
            0.5,
            runs=runs,
            note=f"CPU time over {runs} x {IDLE_S:g} s idle; {_tick(idle)}",
        ),
        Figure(
            "Memory",
            "resident memory, workspace open (watcher)",
            median_of(r.rss_mb for r in with_ws),
            "MB",
            150.0,
            runs=len(with_ws),
            note=f"{WORKSPACE_FILES} files, after the initial scan",
        ),
        Figure(
            "Memory",
            "idle CPU, workspace open (watcher)",
            ws_cpu,
            "% of a core",
            0.5,
            runs=len(with_ws),
            note=f"CPU time over {len(with_ws)} x {WORKSPACE_IDLE_S:g} s; {_tick(ws_idle)}",
        ),
    ]


def _tick(idle_s: float) -> str:
    """The resolution of a CPU share read from /proc over `idle_s` seconds."""
    return f"resolution {100 / TICKS / idle_s:.2g} %"


# --- child processes ---------------------------------------------------------------------


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("OLLAMA_HOST", None)
    env.update(
        LOKI_HOME=str(home),
        QT_QPA_PLATFORM="offscreen",
        PYTHONPYCACHEPREFIX=str(PYCACHE),
        PYTHONPATH=str(REPO),
        PYTHONUTF8="1",
    )
    return env


def _spawn(mode: str, home: Path) -> tuple[subprocess.Popen[bytes], float]:
    home.mkdir(parents=True, exist_ok=True)
    env = _env(home)
    with (home / LOG).open("wb") as log:  # the child keeps its own copy
        started = time.time()
        child = subprocess.Popen(
            [sys.executable, "-m", "bench.window_probe", mode],
            stdout=subprocess.PIPE,
            stderr=log,
            cwd=REPO,
            env=env,
        )
    return child, started


def _start_bare(root: Path, settle: float = 0.0) -> BareRun:
    home = Path(tempfile.mkdtemp(dir=root))
    child, started = _spawn("bare", home)
    try:
        shown = _wait_for(child, {"SHOWN"}, home)["SHOWN"]
        time.sleep(settle)
        rss = _rss_mb(child.pid)
    finally:
        _end(child)
    return BareRun(shown - started, rss)


def _run_app(
    root: Path,
    host: str,
    idle: float,
    workspace: Path | None = None,
    history: tuple[Path, str] | None = None,
    database: Path | None = None,
) -> AppRun:
    """One start; `history` reopens its conversation, `database` is only there (the
    sidebar lists it, the welcome page is shown)."""
    home = Path(tempfile.mkdtemp(dir=root))
    if database is not None:
        shutil.copy(database, home / "history.db")
    settings: dict[str, Any] = {"host": host, "model": MODEL}
    if workspace is not None:
        settings["workspace"] = str(workspace)
    if history is not None:
        database, conversation = history
        shutil.copy(database, home / "history.db")
        settings["ui"] = {"conversation": conversation}
    (home / "settings.json").write_text(json.dumps(settings))
    child, started = _spawn("app", home)
    try:
        seen = _wait_for(child, {"SHOWN", "READY"}, home)
        time.sleep(SETTLE_S)
        if workspace is not None:
            time.sleep(2.0)  # the initial scan checks the 50 most recent files
        rss = _rss_mb(child.pid)
        cpu_before, wall_before = _cpu_s(child.pid), time.monotonic()
        time.sleep(idle)
        cpu, wall = _cpu_s(child.pid) - cpu_before, time.monotonic() - wall_before
    finally:
        _end(child)
    return AppRun(seen["SHOWN"] - started, seen["READY"] - started, rss, cpu, wall)


def _wait_for(
    child: subprocess.Popen[bytes], wanted: set[str], home: Path | None = None
) -> dict[str, float]:
    """The times the probe printed for `wanted`; its stderr (in `home`) says why if not."""
    assert child.stdout is not None
    seen: dict[str, float] = {}
    deadline = time.monotonic() + START_TIMEOUT_S

    def failed(why: str) -> RuntimeError:
        log = (home / LOG).read_text(errors="replace")[-2000:] if home else ""
        return RuntimeError(f"{why}; the probe's stderr ends with:\n{log}")

    with selectors.DefaultSelector() as selector:
        selector.register(child.stdout, selectors.EVENT_READ)
        while not wanted <= seen.keys():
            if not selector.select(timeout=max(0.0, deadline - time.monotonic())):
                raise failed(f"no {sorted(wanted - seen.keys())} from the window probe")
            line = child.stdout.readline().decode()
            if not line:
                raise failed(f"the window probe exited ({child.wait()}) before {wanted}")
            what, _, stamp = line.strip().partition(" ")
            if what in wanted:
                seen.setdefault(what, float(stamp))
    return seen


def _end(child: subprocess.Popen[bytes]) -> None:
    if child.poll() is None:
        child.send_signal(signal.SIGTERM)  # the app closes cleanly on SIGTERM
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
    if child.stdout is not None:
        child.stdout.close()


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def _cpu_s(pid: int) -> float:
    """utime + stime of the process (all its threads), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def _history(folder: Path) -> tuple[Path, str]:
    """A history.db holding one long conversation (as the History figure builds it)."""
    from bench.chat import history_conversation
    from loki_desktop.persistence.history import History

    folder.mkdir()
    store = History(folder / "history.db")
    conversation = history_conversation(store, HISTORY_MESSAGES)
    store.close()
    return folder / "history.db", conversation


def _workspace(folder: Path) -> Path:
    """A small project: Python files in a few folders, as a user's workspace."""
    for index in range(WORKSPACE_FILES):
        path = folder / f"pkg{index % 10}" / f"module_{index}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f'"""Module {index}."""\n\n\ndef f{index}(x):\n    return x + {index}\n')
    return folder
