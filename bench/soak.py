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
a collection). Memory is VmRSS after a collection, warm (after 10 turns) and after 100.
The stall is the longest gap between two 5 ms Qt timer ticks during turns 11 to 100.

    python -m bench.soak --child      # prints the measurements as JSON on stdout
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.figures import Figure

TURNS = 100
WARM = 10
CONVERSATIONS = 20
LONG_TOKENS = 1_500
TOKEN_DELAY_S = 0.001  # a line at a time, as a model streams (each one its own socket read)
TICK_MS = 5
REPO = Path(__file__).resolve().parent.parent
KINDS = ("markdown", "long", "outils", "mcp", "court")
STREAMED = [0]  # lines the server streamed (the child's count)


def measure() -> list[Figure]:
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, LOKI_HOME=home, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(REPO))
        env.pop("OLLAMA_HOST", None)
        done = subprocess.run(
            [sys.executable, "-m", "bench.soak", "--child"],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            check=True,
            timeout=1200,
        )
    data = json.loads(done.stdout.decode().strip().splitlines()[-1])
    return _figures(data)


def _figures(data: dict[str, Any]) -> list[Figure]:
    warm, end = data["warm"], data["end"]
    return [
        Figure(
            "Soak",
            f"memory after {TURNS} turns vs warm ({WARM})",
            end["rss_mb"] - warm["rss_mb"],
            "MB",
            3.0,
            note=f"VmRSS {warm['rss_mb']:.1f} -> {end['rss_mb']:.1f} MB; "
            f"{CONVERSATIONS} conversations, Markdown, tool rounds, MCP calls, "
            f"{LONG_TOKENS:,}-token answers",
        ),
        Figure(
            "Soak",
            f"pending loop timers after {TURNS} turns",
            end["handles"],
            "",
            50,
            note=f"{warm['handles']} when warm; {data['chunks']:,} streamed lines in all",
        ),
        Figure(
            "Soak",
            "longest event-loop stall during the soak",
            data["max_gap_ms"],
            "ms",
            None,
            note=f"gap between {TICK_MS} ms ticks; 99th pct {data['p99_gap_ms']:.1f} ms; "
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
    STREAMED[0] += len(reply.tokens) + (1 if reply.tool_calls else 0) + 1  # + the done line
    return reply


def live_handles() -> int:
    return sum(1 for obj in gc.get_objects() if type(obj) is asyncio.Handle)


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def snapshot() -> dict[str, float]:
    gc.collect()
    return {"rss_mb": rss_mb(), "handles": live_handles()}


async def _turn(window: Any, ollama: Any, index: int, conversations: list[str]) -> None:
    slot = index % CONVERSATIONS
    if index < CONVERSATIONS:
        window.new_conversation()
    else:
        window.open_conversation(conversations[slot])
    window.composer.set_text(f"{KINDS[index % len(KINDS)]} : question {index}")
    window.composer.submit()
    session = window.current
    assert session is not None
    await session.runner.wait()
    ollama.requests.clear()  # the scripted server's log of bodies is the bench's, not the app's
    if index < CONVERSATIONS:
        conversations.append(session.id)


async def _child(workspace: Path) -> dict[str, Any]:
    from PySide6.QtCore import QTimer

    from loki_desktop.app import build_services
    from loki_desktop.core.settings import Settings
    from loki_desktop.ui.collector import MainThreadCollector
    from loki_desktop.ui.main_window import MainWindow
    from loki_desktop.ui.runtime import Runtime
    from loki_desktop.ui.theme import Theme
    from tests.fakes.demo_conversation import SALES_CSV
    from tests.fakes.ollama_server import FakeOllama

    (workspace / "ventes.csv").write_text(SALES_CSV)
    echo = REPO / "tests" / "fakes" / "mcp_servers" / "echo.py"
    services = build_services()
    with FakeOllama() as ollama:
        ollama.script(*[reply_for] * (TURNS * 4))
        services.settings.save(
            Settings(
                host=ollama.url,
                model="qwen2.5-coder:7b",
                workspace=str(workspace),
                mcp_servers={"echo": {"enabled": True, "command": [sys.executable, str(echo)]}},
            )
        )
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
            await _turn(window, ollama, index, conversations)
        warm = snapshot()

        gaps: list[float] = []
        last = time.perf_counter()

        def tick() -> None:
            nonlocal last
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

        timer = QTimer()
        timer.setInterval(TICK_MS)
        timer.timeout.connect(tick)
        began = last = time.perf_counter()
        timer.start()
        for index in range(WARM, TURNS):
            if index % 10 == 0:
                print(f"  soak turn {index}/{TURNS}", file=sys.stderr, flush=True)
            await _turn(window, ollama, index, conversations)
        timer.stop()
        seconds = time.perf_counter() - began
        end = snapshot()
        await window.shutdown()
        await runtime.aclose()
        collector.stop()
    gaps.sort()
    return {
        "warm": warm,
        "end": end,
        "seconds": seconds,
        "max_gap_ms": gaps[-1] * 1000,
        "p99_gap_ms": gaps[int(len(gaps) * 0.99)] * 1000,
        "chunks": STREAMED[0],
    }


def child_main() -> int:
    import qasync
    from PySide6.QtWidgets import QApplication

    app = QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    with (
        tempfile.TemporaryDirectory() as workspace,
        asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner,
    ):
        result = runner.run(_child(Path(workspace)))
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__" and sys.argv[1:] == ["--child"]:
    sys.exit(child_main())
