"""Where the soak's memory goes: the soak's session with the C allocator's view every 10 turns.

Not a figure of `make bench`: a tool for the next person chasing the soak's growth. Each
sample (after the same clean-up as the soak's snapshot) gives VmRSS at once ("instant"),
once the window gave memory back ("rss", the soak's figure), after the probe's own
`malloc_trim(0)` ("trimmed", with its cost "trim_ms"), glibc's `mallinfo2` (bytes in use
vs free but kept, in all arenas and in mmapped blocks), the anonymous memory of
/proc/self/smaps_rollup, the resident memory after the trim by kind of mapping, CPython's
arenas and the number of malloc arenas. Environment knobs, to bisect the workload or test
a hypothesis:

    SOAK_TURNS=100          turns in all (warm point: 10)
    SOAK_KINDS=court,long   only these kinds of turn (default: the soak's five)
    SOAK_CONVERSATIONS=2    conversations the turns go round (the soak: 20)
    SOAK_DISSECT=1          at the end, the C heap held by each kind of item of a reopened view
    SOAK_SAME=1             ten turns a conversation (a new one every ten), none reopened
    SOAK_NEW=1              every turn in a new conversation (none reopened)
    SOAK_OPEN_ONLY=1        after the first 20 turns, only reopen conversations (no new turn)
    SOAK_PAGE=12            messages built when a conversation is opened (the app: 40)
    SOAK_SQLITE_CACHE=64    KB of page cache for every SQLite connection (SQLite's: 2,000)
    SOAK_PIXMAPS=0          QPixmapCache limit in KB, set before the window is built
    SOAK_SKIP=mod.Class.meth,...  (bisecting) these methods do nothing from turn 20 on
    SOAK_SMAPS=/some/dir    /proc/self/smaps and malloc_info's XML after each sample
    SOAK_ISLANDS=1          live blocks alone between free chunks of the main heap (stderr)
    SOAK_MODULES=1          modules imported, re patterns compiled after the warm point
    SOAK_NEW_MAPS=1         Python objects living in memory mapped after the warm point
    SOAK_TRACE=1            tracemalloc from turn 10; Python sites grown since turn 20 (stderr)
    SOAK_EXIT_AT_END=1      os._exit right after the last sample (for heaptrack's "leaked")
    MALLOC_ARENA_MAX=2      (glibc's own) fewer malloc arenas
    PYTHONMALLOC=malloc     (CPython's own) Python objects through malloc, counted in mallinfo

    python -m bench.soak_probe            # the table on stdout; JSON with --json
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import soak


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd",
            "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost",
        )
    ]  # fmt: skip


def _libc() -> ctypes.CDLL:
    name = ctypes.util.find_library("c")
    assert name is not None
    return ctypes.CDLL(name)


def _malloc_info(libc: ctypes.CDLL) -> str:
    """glibc's malloc_info XML: each arena's free chunks by size, and its totals."""
    with tempfile.NamedTemporaryFile("r", suffix=".xml") as out:
        libc.fopen.restype = ctypes.c_void_p
        fp = libc.fopen(out.name.encode(), b"w")
        libc.malloc_info(0, ctypes.c_void_p(fp))
        libc.fclose(ctypes.c_void_p(fp))
        return Path(out.name).read_text()


def _arenas(libc: ctypes.CDLL) -> int:
    """malloc_info's <heap> count (the main arena is one of them)."""
    return len(re.findall(r"<heap nr=", _malloc_info(libc)))


def _pymalloc() -> tuple[float, float]:
    """CPython's small-object allocator: its arenas (MB), and the bytes of live blocks (MB)."""
    with tempfile.TemporaryFile("w+") as out:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(out.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        out.seek(0)
        text = out.read()
    arenas = re.search(r"arenas allocated current\s+=\s+(\d+)", text)
    used = re.search(r"bytes in allocated blocks\s+=\s+([\d,]+)", text)
    if arenas is None or used is None:  # pymalloc not in use (tracemalloc, PYTHONMALLOC)
        return float("nan"), float("nan")
    return float(arenas.group(1)), int(used.group(1).replace(",", "")) / (1024 * 1024)


def _account(line: str, kind: str, sizes: dict[str, int]) -> str:
    """One line of smaps: a mapping's head gives the kind of what follows; Rss adds to it."""
    head = re.match(r"^([0-9a-f]+)-[0-9a-f]+ \S+ \S+ \S+ (\d+)\s*(.*)$", line)
    if head:
        start, inode, name = int(head.group(1), 16), int(head.group(2)), head.group(3)
        if name == "[heap]":
            return "heap_trim"
        if inode == 0 and not name and start % (64 << 20) == 0:
            return "thread_arenas"
        return "other_anon" if inode == 0 else "files"
    if line.startswith("Rss:"):
        sizes[kind] += int(line.split()[1])
    return kind


def _mappings() -> dict[str, float]:
    """Resident MB after the trim, by kind of mapping: glibc's main heap, its thread arenas
    (64 MB-aligned anonymous mappings), other anonymous memory, and files (libraries, fonts)."""
    sizes = {"heap_trim": 0, "thread_arenas": 0, "other_anon": 0, "files": 0}
    kind = "files"
    with open("/proc/self/smaps") as smaps:  # line by line: a 1 MB string would count
        for line in smaps:
            kind = _account(line, kind, sizes)
    return {key: value / 1024 for key, value in sizes.items()}


def _in_use_mb() -> float:
    libc = _libc()
    libc.mallinfo2.restype = _MallInfo2
    return float(libc.mallinfo2().uordblks) / (1024 * 1024)


def sample() -> dict[str, float]:
    libc = _libc()
    libc.mallinfo2.restype = _MallInfo2
    info = libc.mallinfo2()
    rollup = Path("/proc/self/smaps_rollup").read_text()
    anon = int(re.search(r"^Anonymous:\s+(\d+)", rollup, re.M).group(1))  # type: ignore[union-attr]
    mb = 1024 * 1024
    rss = soak.rss_mb()
    began = time.perf_counter()
    libc.malloc_trim(0)
    trim_ms = (time.perf_counter() - began) * 1000
    return {
        "rss": rss,
        "trim_ms": trim_ms,
        "trimmed": soak.rss_mb(),
        "in_use": info.uordblks / mb,
        "free_kept": info.fordblks / mb,
        "mmapped": info.hblkhd / mb,
        "anon": anon / 1024,
        "arenas": _arenas(libc),
        **_mappings(),
        "py_arenas": _pymalloc()[0],
        "py_used": _pymalloc()[1],
        "threads": len(os.listdir("/proc/self/task")),
    }


async def _clean(window: Any) -> None:
    from PySide6.QtCore import QCoreApplication, QEvent

    window.sessions.new_conversation()
    await asyncio.sleep(0)
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    import gc

    gc.collect()


def _knobs() -> int:
    """Applies the SOAK_* settings that change the workload; the number of turns."""
    from PySide6.QtGui import QPixmapCache

    from loki_desktop.ui import sessions
    from loki_desktop.ui.chat import view as chat_view

    if "SOAK_PIXMAPS" in os.environ:
        QPixmapCache.setCacheLimit(int(os.environ["SOAK_PIXMAPS"]))
    if "SOAK_PAGE" in os.environ:  # messages built when a conversation is opened
        # sessions imported the name: both copies are set
        chat_view.PAGE_SIZE = sessions.PAGE_SIZE = int(os.environ["SOAK_PAGE"])  # type: ignore[attr-defined]
    if "SOAK_SQLITE_CACHE" in os.environ:  # KB of page cache for every SQLite connection
        _sqlite_cache(int(os.environ["SOAK_SQLITE_CACHE"]))
    if "SOAK_SKIP" in os.environ:  # bisecting: these methods do nothing after turn 20
        _skip(os.environ["SOAK_SKIP"].split(","))
    if "SOAK_KINDS" in os.environ:
        soak.KINDS = tuple(os.environ["SOAK_KINDS"].split(","))  # type: ignore[assignment]
    if "SOAK_CONVERSATIONS" in os.environ:  # fewer: each grows faster
        soak.CONVERSATIONS = int(os.environ["SOAK_CONVERSATIONS"])
    if os.environ.get("SOAK_SAME") == "1" or os.environ.get("SOAK_NEW") == "1":
        soak.CONVERSATIONS = 1_000_000  # no conversation is reopened
    return int(os.environ.get("SOAK_TURNS", soak.TURNS))


def _sqlite_cache(kb: int) -> None:
    import sqlite3

    connect = sqlite3.connect

    def small(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        db: sqlite3.Connection = connect(*args, **kwargs)
        db.execute(f"PRAGMA cache_size = -{kb}")
        return db

    sqlite3.connect = small  # type: ignore[assignment]


SKIPPING: list[bool] = []  # set at turn 20: the SOAK_SKIP methods do nothing from then on


def _skip(paths: list[str]) -> None:
    import importlib

    for path in paths:
        module_name, class_name, method = path.rsplit(".", 2)
        owner = getattr(importlib.import_module(module_name), class_name)
        original = getattr(owner, method)

        def maybe(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
            return None if SKIPPING else _original(*args, **kwargs)

        setattr(owner, method, maybe)


async def _step(window: Any, index: int, conversations: list[str]) -> None:
    """One turn of the soak, or of the variant the knobs ask for."""
    if os.environ.get("SOAK_SAME") == "1" and index % 10 != 0:
        window.composer.set_text(f"{soak.kind_of(index)} : question {index}")
        window.composer.submit()
        await window.sessions.current.runner.wait()
    elif os.environ.get("SOAK_OPEN_ONLY") == "1" and index >= soak.CONVERSATIONS:
        window.sessions.open_conversation(conversations[index % soak.CONVERSATIONS])
        for _ in range(3):
            await asyncio.sleep(0.01)
    else:
        await soak._turn(window, index, conversations)


def _record(turn: int, total: int, samples: list[dict[str, float]]) -> None:
    samples.append({"turn": turn, **sample()})
    if "SOAK_SMAPS" in os.environ:  # a folder: the mappings after each sample
        Path(os.environ["SOAK_SMAPS"], f"{turn}.smaps").write_text(
            Path("/proc/self/smaps").read_text()
        )
        Path(os.environ["SOAK_SMAPS"], f"{turn}.xml").write_text(_malloc_info(_libc()))
    print(f"  probe turn {turn}/{total}", file=sys.stderr, flush=True)
    if os.environ.get("SOAK_TRACE") == "1":
        _trace(turn)
    if os.environ.get("SOAK_ISLANDS") == "1" and turn in (10, total):
        _islands(turn)
    if os.environ.get("SOAK_MODULES") == "1" and turn in (10, 20, total):
        _modules(turn)
    if os.environ.get("SOAK_NEW_MAPS") == "1" and turn in (10, 20, 30, total):
        _objects_in_new_mappings(turn)


_WARM_MAPS: list[tuple[int, int]] = []


def _objects_in_new_mappings(turn: int) -> None:
    """Python objects (those the collector tracks) living in memory mapped after the warm
    point, e.g. a pymalloc arena opened by a reopened conversation's peak (stderr)."""
    import bisect
    import gc
    from collections import Counter

    maps = []
    for line in Path("/proc/self/maps").read_text().splitlines():
        start, end = (int(x, 16) for x in line.split()[0].split("-"))
        maps.append((start, end))
    if not _WARM_MAPS:
        _WARM_MAPS.extend(sorted(maps))
        return
    starts = [start for start, _end in _WARM_MAPS]

    def old(address: int) -> bool:
        i = bisect.bisect_right(starts, address) - 1
        return i >= 0 and _WARM_MAPS[i][0] <= address < _WARM_MAPS[i][1]

    found: Counter[str] = Counter()
    samples: dict[str, str] = {}
    for obj in gc.get_objects():
        if not old(id(obj)):
            name = type(obj).__qualname__
            found[name] += 1
            samples.setdefault(name, repr(obj)[:100])
    print(f"  objects in memory mapped since the warm point, turn {turn}:", file=sys.stderr)
    for name, count in found.most_common(25):
        print(f"     {count:6d} {name}: {samples[name]}", file=sys.stderr)


_MODULES: set[str] = set()


def _modules(turn: int) -> None:
    """Modules first imported after the warm point, and the size of re's pattern cache."""
    import re as re_module

    now = set(sys.modules)
    if _MODULES:
        print(f"  modules new at turn {turn}: {sorted(now - _MODULES)}", file=sys.stderr)
    _MODULES.update(now)
    cache = getattr(re_module, "_cache", {})
    keys = {repr(key)[:120] for key in cache}
    new = sorted(keys - _RE_KEYS) if _RE_KEYS else []
    print(f"  re's cache at turn {turn}: {len(cache)} patterns, {len(new)} new", file=sys.stderr)
    for key in new[:15]:
        print(f"     {key}", file=sys.stderr)
    _RE_KEYS.update(keys)


_RE_KEYS: set[str] = set()


_ISLANDS: list[Any] = []


def _islands(turn: int) -> None:
    """The live blocks alone between free chunks of the main heap, warm and at the end."""
    from bench.heap_islands import SAMPLES, islands

    libc = _libc()
    libc.sbrk.restype = ctypes.c_void_p
    found = islands(sample_above=int(_ISLANDS[1]) if _ISLANDS else 0)
    if not _ISLANDS:
        _ISLANDS.extend([found, libc.sbrk(0)])  # the heap's top when warm
        print(f"  islands at turn {turn}: {found.most_common(12)}", file=sys.stderr)
        return
    grown = found.copy()
    grown.subtract(_ISLANDS[0])
    print(f"  islands at turn {turn}: {found.most_common(12)}", file=sys.stderr)
    for name, count in sorted(grown.items(), key=lambda kv: -kv[1])[:25]:
        print(f"  islands grown {count:+6d} {name}", file=sys.stderr)
    for line in SAMPLES:
        print(f"  unnamed island above the warm top: {line}", file=sys.stderr)


async def _probe(host: str, workspace: Path) -> list[dict[str, float]]:
    from loki_desktop.app import build_services
    from loki_desktop.core.settings_changes import take_in
    from loki_desktop.ui.collector import MainThreadCollector
    from loki_desktop.ui.runtime import Runtime
    from loki_desktop.ui.theme import Theme
    from loki_desktop.ui.window.main_window import MainWindow
    from tests.fakes.demo_conversation import SALES_CSV

    turns = _knobs()
    (workspace / "ventes.csv").write_text(SALES_CSV)
    services = build_services()
    wanted = soak._settings(host, workspace)
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
    samples: list[dict[str, float]] = []
    for index in range(turns):
        if index == 20:
            SKIPPING.append(True)
        await _step(window, index, conversations)
        if (index + 1) % 10 == 0:
            on_screen = _in_use_mb()  # the last turn's conversation still shown
            await _clean(window)
            instant = soak.rss_mb()
            await soak.idle_return(window)
            _record(index + 1, turns, samples)
            samples[-1]["view"] = on_screen - samples[-1]["in_use"]
            samples[-1]["instant"] = instant
    if os.environ.get("SOAK_BIG") == "1":
        _big_containers()
    if os.environ.get("SOAK_DISSECT") == "1":
        await _dissect(window, conversations[0])
    if os.environ.get("SOAK_EXIT_AT_END") == "1":
        print(json.dumps(samples), flush=True)
        os._exit(0)
    await window.shutdown()
    await runtime.aclose()
    collector.stop()
    return samples


async def _dissect(window: Any, conversation_id: str) -> None:
    """Reopens a conversation, then deletes its view's items one kind at a time: the C heap
    each kind held (stderr)."""
    from PySide6.QtCore import QCoreApplication, QEvent

    window.sessions.new_conversation()
    window.sessions.open_conversation(conversation_id)
    await asyncio.sleep(0.05)
    view = window.sessions.current.view
    kinds: dict[str, list[Any]] = {}
    for item in view.items():
        kinds.setdefault(type(item).__name__, []).append(item)
    for name, items in kinds.items():
        before = _in_use_mb()
        for item in items:
            item.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        import gc

        gc.collect()
        held = before - _in_use_mb()
        print(f"  view item {name}: {len(items)} hold {held:.2f} MB", file=sys.stderr)


_TRACE: list[Any] = []


def _trace(turn: int) -> None:
    """tracemalloc from the warm point on; at the others, the Python sites that grew (stderr)."""
    import tracemalloc

    if not tracemalloc.is_tracing():
        tracemalloc.start(12)
        return
    own = tracemalloc.Filter(False, tracemalloc.__file__)
    snap = tracemalloc.take_snapshot().filter_traces([own])
    if not _TRACE:
        _TRACE.append(snap)
        return
    print(f"  --- Python growth, turn 20 -> {turn}", file=sys.stderr)
    for stat in snap.compare_to(_TRACE[0], "traceback")[:6]:
        print(f"  {stat.size_diff / 1024:+.0f} KB {stat.count_diff:+d} blocks", file=sys.stderr)
        for line in stat.traceback.format()[-12:]:
            print("     " + line, file=sys.stderr)


def _big_containers() -> None:
    """The largest live lists and dicts, and who holds them (stderr)."""
    import gc

    found: Any = [o for o in gc.get_objects() if isinstance(o, (list, dict, set)) and len(o) > 1000]
    found.sort(key=len, reverse=True)
    for obj in found[:8]:
        holders = [type(r).__name__ for r in gc.get_referrers(obj) if r is not found][:4]
        sample_items = list(obj)[:3] if not isinstance(obj, dict) else list(obj.items())[:2]
        print(
            f"  big {type(obj).__name__} len={len(obj)} held by {holders}: {sample_items!r:.300}",
            file=sys.stderr,
        )
        for ref in gc.get_referrers(obj):
            if isinstance(ref, dict) and ref is not found:
                keys = [k for k, v in ref.items() if v is obj]
                owners = [type(o).__name__ for o in gc.get_referrers(ref) if o is not found][:4]
                print(f"     as {keys} in a dict held by {owners}", file=sys.stderr)


def main() -> int:
    data: Any = soak.run_against_server("bench.soak_probe", timeout=3600)
    if "--json" in sys.argv:
        print(json.dumps(data))
        return 0
    keys = ["instant", "rss", "trimmed", "in_use", "free_kept", "mmapped", "anon", "heap_trim"]
    keys += ["thread_arenas", "other_anon", "files", "view"]
    keys += ["py_arenas", "py_used", "arenas", "threads", "trim_ms"]
    print("turn " + " ".join(f"{k:>9}" for k in keys))
    for row in data:
        print(f"{row['turn']:>4} " + " ".join(f"{row[k]:>9.1f}" for k in keys))
    return 0


if __name__ == "__main__" and sys.argv[1:2] == ["--child"]:
    sys.exit(soak.child_main(sys.argv[2], _probe))
if __name__ == "__main__":
    sys.exit(main())
