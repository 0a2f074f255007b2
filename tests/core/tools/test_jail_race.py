"""The jail cannot be raced: a component swapped for a link to the outside between any two
steps of any tool, and a thread swapping it all the time, never let a tool out."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.core.tools.race_rig import OUTSIDE_ONLY, SECRET, Scene

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("read_file", {"path": "sub/file.txt"}),
    ("write_file", {"path": "sub/file.txt", "content": "written"}),
    ("write_file", {"path": "sub/new/deeper.txt", "content": "written"}),
    ("edit_file", {"path": "sub/file.txt", "old_text": "inside", "new_text": "edited"}),
    ("list_dir", {"path": "sub"}),
    ("grep_search", {"pattern": "SECRET|inside", "path": "."}),
    ("grep_search", {"pattern": "SECRET|inside", "path": "sub/file.txt"}),
    ("run_check", {"path": "sub/data.json"}),
]


def _steps(scene: Scene, name: str, args: dict[str, Any]) -> list[tuple[str, str]]:
    """Every step the tool goes through, in order (a dry run without a swap)."""
    seen: list[tuple[str, str]] = []
    asyncio.run(scene.toolbox(lambda step, rel: seen.append((step, rel))).call(name, args))
    return seen


CALL_IDS = [f"{name}-{index}" for index, (name, _) in enumerate(CALLS)]


@pytest.mark.parametrize("swap", ["folder", "file"])
@pytest.mark.parametrize(("name", "args"), CALLS, ids=CALL_IDS)
def test_a_swap_between_any_two_steps_never_lets_a_tool_out(
    tmp_path: Path, name: str, args: dict[str, Any], swap: str
) -> None:
    steps = _steps(Scene.build(tmp_path / "dry"), name, args)
    assert steps, "the tool never called the jail's hook"
    for index, step in enumerate(steps):
        scene = Scene.build(tmp_path / f"case-{index}")
        before = scene.outside_state()
        calls = 0

        def hook(_step: str, _rel: str, scene: Scene = scene, at: int = index) -> None:
            nonlocal calls
            if calls == at:
                scene.swap_folder() if swap == "folder" else scene.swap_file()
            calls += 1

        outcome = asyncio.run(scene.toolbox(hook).call(name, args))
        where = f"{name} {args} swapped ({swap}) at step {index} {step}"
        assert scene.outside_state() == before, where
        assert SECRET not in outcome.output, where
        assert OUTSIDE_ONLY not in outcome.output, where
        assert calls > index, where  # the swap did happen


STRESS_OPERATIONS = 2_000


def test_a_thread_swapping_a_folder_all_the_time_gets_nothing_out(tmp_path: Path) -> None:
    """The suite's run; bench/jail_race.py makes 10,000 and prints the count."""
    scene = Scene.build(tmp_path)
    escapes = run_race(scene, STRESS_OPERATIONS)
    assert escapes == []


def run_race(scene: Scene, operations: int) -> list[str]:
    """`operations` tool calls while a thread swaps `sub` between a folder and a link to
    the outside; returns every escape (a file written outside, a secret read)."""
    stop = threading.Event()
    sub, moved, link = (scene.workspace / n for n in ("sub", "sub-moved", "sub-link"))
    link.symlink_to(scene.outside)

    def swapper() -> None:
        made = 0
        while not stop.is_set():
            try:
                sub.rename(moved)  # the folder leaves ...
                link.rename(sub)  # ... a link to the outside takes its name ...
                sub.rename(link)
                moved.rename(sub)  # ... and the folder comes back
            except OSError:  # a write made a new `sub` while it was away: set it aside
                made += 1
                with contextlib.suppress(OSError):
                    if sub.is_symlink():
                        sub.rename(link)
                    elif sub.is_dir() and moved.is_dir():
                        aside = scene.workspace / f"made-{made}"
                        sub.rename(aside)
                        shutil.rmtree(aside, ignore_errors=True)
                    if moved.is_dir():
                        moved.rename(sub)

    before = scene.outside_state()
    box = scene.toolbox()
    escapes: list[str] = []

    async def calls() -> None:
        for number in range(operations):
            name, args = CALLS[number % len(CALLS)]
            if name == "write_file":
                args = {"path": f"sub/w{number % 10}.txt", "content": "w"}
            outcome = await box.call(name, args)
            if SECRET in outcome.output or OUTSIDE_ONLY in outcome.output:
                escapes.append(f"{name} {args}: {outcome.output[:80]}")

    thread = threading.Thread(target=swapper, daemon=True)
    thread.start()
    try:
        asyncio.run(calls())
    finally:
        stop.set()
        thread.join()
    after = scene.outside_state()
    escapes += [f"written outside: {name}" for name in after if name not in before]
    escapes += [f"changed outside: {name}" for name in before if after.get(name) != before[name]]
    return escapes
