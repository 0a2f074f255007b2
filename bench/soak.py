"""Soak: a day-long session in a few minutes. Memory and pending loop timers after 100 turns
against the warm state after 10, and the longest stall of the Qt event loop meanwhile.

Runs in a child process (offscreen Qt, qasync, a fresh data folder and workspace), the
window built as the app builds it (Runtime, MainWindow, the main-thread collector), with
one MCP server on (the echo test server, over stdio). 100 turns go round 20 conversations
(each reopened from the list as a person would), in a cycle of five kinds: a Markdown
answer, a 1,500-token answer, a tool round (read a CSV, write a script with a bug, the
check fails, fix it, answer), an MCP tool call, a short answer. Answers stream from the
scripted Ollama server through the real HTTP client, agent and turn runner.

Pending loop timers: on qasync every `call_later`/`call_at` is an `asyncio.Handle` held
by a Qt timer until its deadline, even once cancelled; the live handles are counted (after
a collection). Memory is VmRSS after a collection, warm (after 10 turns) and after 100,
both read the same way: on the welcome page, once the window has given the freed memory
back as it does a moment after a switch (the figure), and also at once (in the note).
The stall is the longest gap between two 5 ms Qt timer ticks during turns 11 to 100.

    python -m bench.soak --child      # prints the measurements as JSON on stdout
"""

from __future__ import annotations

import asyncio
import gc
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from bench.child import REPO, offscreen_env, run_child
from bench.figures import Figure

TURNS = 100
WARM = 10
CONVERSATIONS = 20
LONG_TOKENS = 1_500
TOKEN_DELAY_S = 0.001  # a line at a time, as a model streams (each one its own socket read)
TICK_MS = 5

KINDS = ("markdown", "long", "outils", "mcp", "court")


def measure() -> list[Figure]:
    return _figures(run_against_server("bench.soak", timeout=1200))


def run_against_server(child_module: str, timeout: float) -> Any:
    """Run `child_module`'s window child against the soak's scripted server; its JSON."""
    with tempfile.TemporaryDirectory() as home:
        env = offscreen_env(home)
        # the scripted server in a process of its own: its threads and the request bodies
        # it records would otherwise count in the app's memory and share its interpreter
        server = subprocess.Popen(
            [sys.executable, "-m", "bench.soak", "--server"],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            url = server.stdout.readline().strip()
            return run_child(child_module, url, env=env, timeout=timeout)
        finally:
            server.terminate()
            server.wait(timeout=10)
            if server.stdout is not None:
                server.stdout.close()


def _figures(data: dict[str, Any]) -> list[Figure]:
    warm, end = data["warm"], data["end"]
    return [
        Figure(
            "Soak",
            f"memory after {TURNS} turns vs warm ({WARM}), once idle",
            end["rss_mb"] - warm["rss_mb"],
            "MB",
            3.0,
            note=f"VmRSS once the window gave memory back {warm['rss_mb']:.1f} -> "
            f"{end['rss_mb']:.1f} MB (read at once, before it: {warm['instant_mb']:.1f} -> "
            f"{end['instant_mb']:.1f}, {end['instant_mb'] - warm['instant_mb']:+.1f}; "
            f"the bench's own malloc_trim: {warm['trimmed_mb']:.1f} -> {end['trimmed_mb']:.1f}; "
            f"every 10 turns: {', '.join(f'{v:.0f}' for v in data['rss_every_10_turns'])}); "
            f"{CONVERSATIONS} conversations, Markdown, tool rounds, MCP calls, "
            f"{LONG_TOKENS:,}-token answers",
        ),
        Figure(
            "Soak",
            f"pending loop timers after {TURNS} turns",
            end["handles"],
            "",
            50,
            note=f"{warm['handles']} when warm; widgets {warm['widgets']} -> {end['widgets']}",
        ),
        Figure(
            "Soak",
            "longest event-loop stall during the soak",
            data["max_gap_ms"],
            "ms",
            None,
            note=f"gap between {TICK_MS} ms ticks, worst in {data['max_gap_during']}; "
            f"99th pct {data['p99_gap_ms']:.1f} ms; "
            f"{data['seconds']:.0f} s for {TURNS - WARM} turns",
        ),
    ]


# --- the child ------------------------------------------------------------------------------


def reply_for(body: dict[str, Any]) -> Any:
    """The next answer, read from the request: its kind is the question's first word."""
    from tests.fakes.demo_conversation import FINAL_ANSWER, QUICK_ANSWER, words
    from tests.fakes.demo_conversation import reply_for as demo_reply
    from tests.fakes.ollama_server import Reply

    messages = body.get("messages", [])
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=0)
    kind = str(messages[last_user].get("content", "")).split(" ")[0]
    tools_done = sum(1 for m in messages[last_user + 1 :] if m.get("role") == "tool")
    pieces = words(FINAL_ANSWER)
    if kind == "outils":
        reply = demo_reply(body, token_delay=TOKEN_DELAY_S)
    elif kind == "mcp" and tools_done == 0:
        reply = Reply.tool("mcp_echo_echo", {"text": "bonjour"})
    elif kind == "long":
        reply = Reply.text(
            *[pieces[i % len(pieces)] for i in range(LONG_TOKENS)], token_delay=TOKEN_DELAY_S
        )
    else:
        tokens = words(QUICK_ANSWER) if kind == "court" else pieces
        reply = Reply.text(*tokens, token_delay=TOKEN_DELAY_S)
    return reply


def live_handles() -> int:
    return sum(1 for obj in gc.get_objects() if type(obj) is asyncio.Handle)


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


async def snapshot(window: Any) -> dict[str, float]:
    """Memory and timers on the same screen each time: a new conversation, the view of the
    last one deleted (otherwise the end would count its messages' widgets). VmRSS is read
    at once ("instant") and once the window has given its freed memory back as it does when
    left alone (`ui/heap_return`, a moment after the switch): "rss_mb", the figure."""
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication

    window.sessions.new_conversation()
    await asyncio.sleep(0)
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
    instant = rss_mb()
    await idle_return(window)
    return {
        "rss_mb": rss_mb(),
        "instant_mb": instant,
        "handles": live_handles(),
        "trimmed_mb": _trimmed_rss_mb(),
        "widgets": len(QApplication.allWidgets()),
    }


async def idle_return(window: Any) -> None:
    """Waits for the window's own memory return (`ui/heap_return`) the last switch asked
    for, as a window left alone does it; not one of the bench's."""
    memory = window.sessions.heap_return
    deadline = time.monotonic() + 30
    while memory.pending:
        if time.monotonic() > deadline:
            raise RuntimeError("the window's memory return never ran")
        await asyncio.sleep(0.02)


def _trimmed_rss_mb() -> float:
    """VmRSS once the C allocator gave its free memory back (glibc only): what the rest is."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    if name is None:
        return float("nan")
    libc = ctypes.CDLL(name)
    if not hasattr(libc, "malloc_trim"):
        return float("nan")
    libc.malloc_trim(0)
    return rss_mb()


def kind_of(index: int) -> str:
    """Each conversation gets every kind in turn (index % 20 alone would give it one kind)."""
    return KINDS[(index + index // CONVERSATIONS) % len(KINDS)]


async def _turn(
    window: Any, index: int, conversations: list[str], ticks: _Ticks | None = None
) -> None:
    slot = index % CONVERSATIONS
    if ticks is not None:
        ticks.turn = f"turn {index}, opening its conversation"
    if index < CONVERSATIONS:
        window.sessions.new_conversation()
    else:
        window.sessions.open_conversation(conversations[slot])
    await asyncio.sleep(0)
    if ticks is not None:
        ticks.turn = f"turn {index} ({kind_of(index)})"
    window.composer.set_text(f"{kind_of(index)} : question {index}")
    window.composer.submit()
    session = window.sessions.current
    assert session is not None
    await session.runner.wait()
    if index < CONVERSATIONS:
        conversations.append(session.id)


class _Ticks:
    """A 5 ms Qt timer: the gaps between its ticks, and the turn during the longest one."""

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.gaps: list[float] = []
        self.turn = ""
        self.worst = (0.0, "")
        self._last = time.perf_counter()
        self._timer = QTimer()
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)

    def start(self) -> None:
        self._last = time.perf_counter()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _tick(self) -> None:
        now = time.perf_counter()
        gap = now - self._last
        self.gaps.append(gap)
        self.worst = max(self.worst, (gap, self.turn))
        self._last = now


def _settings(host: str, workspace: Path) -> Any:
    from loki_desktop.core.settings import Settings

    echo = REPO / "tests" / "fakes" / "mcp_servers" / "echo.py"
    return Settings(
        host=host,
        model="qwen2.5-coder:7b",
        workspace=str(workspace),
        mcp_servers={"echo": {"enabled": True, "command": [sys.executable, str(echo)]}},
    )


async def _child(host: str, workspace: Path) -> dict[str, Any]:
    from loki_desktop.app import build_services
    from loki_desktop.core.settings_changes import take_in
    from loki_desktop.ui.collector import MainThreadCollector
    from loki_desktop.ui.runtime import Runtime
    from loki_desktop.ui.theme import Theme
    from loki_desktop.ui.window.main_window import MainWindow
    from tests.fakes.demo_conversation import SALES_CSV

    (workspace / "ventes.csv").write_text(SALES_CSV)
    services = build_services()
    wanted = _settings(host, workspace)
    services.settings.update(lambda current: take_in(current, wanted))
    runtime = Runtime(services)
    window = MainWindow(runtime, Theme("light"))
    window.resize(1240, 820)
    window.show()
    collector = MainThreadCollector()
    collector.start()
    await window.start()
    collector.freeze()

    conversations: list[str] = []
    for index in range(WARM):
        await _turn(window, index, conversations)
    warm = await snapshot(window)

    ticks = _Ticks()
    began = time.perf_counter()
    ticks.start()
    trend = []
    for index in range(WARM, TURNS):
        if index % 10 == 0:
            print(f"  soak turn {index}/{TURNS}", file=sys.stderr, flush=True)
            trend.append(round(rss_mb(), 1))
        await _turn(window, index, conversations, ticks)
    ticks.stop()
    seconds = time.perf_counter() - began
    end = await snapshot(window)
    await window.shutdown()
    await runtime.aclose()
    collector.stop()
    gaps = sorted(ticks.gaps)
    return {
        "warm": warm,
        "end": end,
        "seconds": seconds,
        "max_gap_ms": gaps[-1] * 1000,
        "max_gap_during": ticks.worst[1],
        "rss_every_10_turns": trend,
        "p99_gap_ms": gaps[int(len(gaps) * 0.99)] * 1000,
    }


def child_main(host: str, work: Callable[[str, Path], Coroutine[Any, Any, Any]] = _child) -> int:
    """Run `work` on the app's Qt event loop with a fresh workspace; print its JSON result."""
    import qasync
    from PySide6.QtWidgets import QApplication

    app = QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    with (
        tempfile.TemporaryDirectory() as workspace,
        asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner,
    ):
        result: Any = runner.run(work(host, Path(workspace)))
    print(json.dumps(result), flush=True)
    return 0


def server_main() -> int:
    """The scripted Ollama server, answering every request with `reply_for`; prints its URL."""
    import signal

    from tests.fakes.ollama_server import FakeOllama

    with FakeOllama() as server:
        server.script(*[reply_for] * 10_000)  # enough for a long probe (bench/soak_probe.py)
        print(server.url, flush=True)
        signal.sigwait({signal.SIGTERM})
    return 0


if __name__ == "__main__" and sys.argv[1:2] == ["--child"]:
    sys.exit(child_main(sys.argv[2]))
if __name__ == "__main__" and sys.argv[1:] == ["--server"]:
    sys.exit(server_main())
