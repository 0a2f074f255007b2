"""Watcher: start on a 10,000-file workspace, and the time from a save to its problem.

The workspace looks like a project: 200 folders of 50 files (Python, JavaScript, JSON,
HTML, Markdown, text). Start is `WorkspaceWatcher.start()` as the window awaits it: every
folder found and watched; the initial scan of the 50 most recent files then runs in the
background (its end is reported without a budget). Save-to-problem: a Python file is
written with an undefined name (in place, as most editors save), and the time runs until
the watcher reports its problem; the next save fixes it again (not timed).
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from bench.figures import Figure, median_of
from loki_desktop.core.checks.model import CheckResult
from loki_desktop.core.checks.registry import Checkers
from loki_desktop.core.watch import INITIAL_SCAN_FILES, WorkspaceWatcher

FOLDERS = 200
FILES_PER_FOLDER = 50
START_RUNS = 7
SAVE_RUNS = 10
TIMEOUT_S = 10.0
SCAN_TIMEOUT_S = 60.0

CONTENT = {
    ".py": 'def f{n}(x):\n    """Double."""\n    return 2 * x + {n}\n',
    ".js": "export function f{n}(x) {{\n  return 2 * x + {n};\n}}\n",
    ".json": '{{"name": "f{n}", "value": {n}}}\n',
    ".html": "<!doctype html>\n<title>Page {n}</title>\n<p>Page {n}</p>\n",
    ".md": "# Note {n}\n\nSome text.\n",
    ".txt": "plain text {n}\n",
}
# 40 % Python, then the rest: a file's kind is picked from its number
KINDS = [".py", ".py", ".py", ".py", ".js", ".js", ".json", ".html", ".md", ".txt"]
BROKEN = "import os\n\n\ndef main():\n    return os.getcwd() + missing_name\n"
FIXED = "import os\n\n\ndef main():\n    return os.getcwd()\n"


def make_workspace(root: Path) -> int:
    count = 0
    for folder_index in range(FOLDERS):
        folder = root / f"part{folder_index // 20}" / f"module{folder_index}"
        folder.mkdir(parents=True)
        for file_index in range(FILES_PER_FOLDER):
            n = folder_index * FILES_PER_FOLDER + file_index
            suffix = KINDS[n % len(KINDS)]
            (folder / f"file{n}{suffix}").write_text(CONTENT[suffix].format(n=n))
            count += 1
    return count


class Reports:
    """The watcher's callback: remembers results and wakes whoever waits for a path."""

    def __init__(self) -> None:
        self.changed = asyncio.Event()
        self.latest: dict[Path, CheckResult | None] = {}

    def __call__(self, path: Path, result: CheckResult | None) -> None:
        self.latest[path] = result
        self.changed.set()

    async def wait_for(self, path: Path, *, broken: bool) -> None:
        async def until() -> None:
            while True:
                result = self.latest.get(path)
                if result is not None and (bool(result.problems) == broken):
                    return
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(until(), TIMEOUT_S)

    async def wait_count(self, count: int) -> None:
        """Until `count` files were reported (every file checked is, the first time)."""

        async def until() -> None:
            while len(self.latest) < count:
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(until(), SCAN_TIMEOUT_S)


async def _starts(root: Path) -> tuple[list[float], list[float], int]:
    starts: list[float] = []
    scans: list[float] = []
    watched = 0
    for _ in range(START_RUNS):
        reports = Reports()
        watcher = WorkspaceWatcher(root, Checkers(), reports)
        began = time.perf_counter()
        await watcher.start()
        starts.append(time.perf_counter() - began)
        watched = watcher.watched_dirs
        await reports.wait_count(INITIAL_SCAN_FILES)
        scans.append(time.perf_counter() - began)
        await watcher.stop()
    return starts, scans, watched


async def _saves(root: Path) -> list[float]:
    target = root / "part3" / "module70" / "edited.py"
    target.write_text(FIXED)
    reports = Reports()
    async with WorkspaceWatcher(root, Checkers(), reports):
        await reports.wait_for(target.resolve(), broken=False)  # the initial scan saw it
        await reports.wait_count(INITIAL_SCAN_FILES)  # and has finished
        samples = []
        for _ in range(SAVE_RUNS):
            began = time.perf_counter()
            target.write_text(BROKEN)
            await reports.wait_for(target.resolve(), broken=True)
            samples.append(time.perf_counter() - began)
            target.write_text(FIXED)
            await reports.wait_for(target.resolve(), broken=False)
    return samples


def measure() -> list[Figure]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "workspace"
        files = make_workspace(root)
        starts, scans, watched = asyncio.run(_starts(root))
        saves = asyncio.run(_saves(root))
    return [
        Figure(
            "Watcher",
            f"start on a {files:,}-file workspace",
            median_of(starts) * 1000,
            "ms",
            500.0,
            runs=START_RUNS,
            note=f"{watched} folders watched",
        ),
        Figure(
            "Watcher",
            f"initial scan ({INITIAL_SCAN_FILES} most recent files checked)",
            median_of(scans) * 1000,
            "ms",
            None,
            runs=START_RUNS,
            note="in the background, after start",
        ),
        Figure(
            "Watcher",
            "save to problem reported",
            median_of(saves) * 1000,
            "ms",
            1000.0,
            runs=SAVE_RUNS,
            note=f"slowest {max(saves) * 1000:.0f} ms; includes the 50 ms quiet wait",
        ),
    ]
