"""The native tools through the Toolbox, on real files: results, refusals, untrusted arguments."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.tools.jail import Workspace
from loki_desktop.core.tools.native import NativeTools
from loki_desktop.core.tools.text import TOOL_RESULT_CAP
from loki_desktop.core.tools.toolbox import Toolbox

NATIVE_NAMES = {"read_file", "write_file", "edit_file", "list_dir", "grep_search", "run_shell"}


class RecordingApprover:
    """An approver that answers as told and remembers what it was asked."""

    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.asked: list[tuple[str, Path]] = []

    async def approve_shell(self, command: str, cwd: Path) -> bool:
        self.asked.append((command, cwd))
        return self.answer


def make_toolbox(root: Path, allow_shell: bool = False) -> Toolbox:
    return Toolbox([NativeTools(Workspace(root), FixedApprover(allow_shell))])


async def call(box: Toolbox, name: str, args: Any) -> tuple[bool, str]:
    outcome = await box.call(name, args)
    return outcome.ok, outcome.output


def test_tool_names_and_arguments_are_exactly_the_documented_ones(workspace: Path) -> None:
    specs = {spec.name: spec for spec in make_toolbox(workspace).specs()}
    assert set(specs) == NATIVE_NAMES
    props = {name: set(spec.parameters["properties"]) for name, spec in specs.items()}
    assert props == {
        "read_file": {"path"},
        "write_file": {"path", "content"},
        "edit_file": {"path", "old_text", "new_text"},
        "list_dir": {"path"},
        "grep_search": {"pattern", "path"},
        "run_shell": {"command"},
    }
    assert specs["list_dir"].parameters["required"] == []
    assert specs["list_dir"].parameters["properties"]["path"]["default"] == "."
    assert specs["edit_file"].parameters["required"] == ["path", "old_text", "new_text"]
    assert all("title" not in json.dumps(spec.parameters) for spec in specs.values())


def test_no_workspace_means_no_file_tools() -> None:
    assert Toolbox([NativeTools(None, FixedApprover(True))]).specs() == []


async def test_write_creates_parents_atomically_and_read_returns_it(workspace: Path) -> None:
    box = make_toolbox(workspace)
    ok, out = await call(box, "write_file", {"path": "a/b/c.txt", "content": "héllo\n"})
    assert ok, out
    assert (workspace / "a/b/c.txt").read_text(encoding="utf-8") == "héllo\n"
    assert [p.name for p in (workspace / "a/b").iterdir()] == ["c.txt"]  # no temp file left
    ok, out = await call(box, "read_file", {"path": "a/b/c.txt"})
    assert (ok, out) == (True, "héllo\n")


async def test_overwrite_keeps_permission_bits(workspace: Path) -> None:
    script = workspace / "run.sh"
    script.write_text("echo 1\n")
    script.chmod(0o755)
    ok, _ = await call(
        make_toolbox(workspace), "write_file", {"path": "run.sh", "content": "echo 2\n"}
    )
    assert ok
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert script.read_text() == "echo 2\n"


async def test_read_refuses_binary_and_caps_large_files(workspace: Path) -> None:
    (workspace / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    (workspace / "big.txt").write_text("x" * 50_000)
    box = make_toolbox(workspace)
    ok, out = await call(box, "read_file", {"path": "img.png"})
    assert not ok
    assert "binary" in out
    ok, out = await call(box, "read_file", {"path": "big.txt"})
    assert ok
    assert len(out) <= TOOL_RESULT_CAP
    assert "output cut" in out


async def test_read_missing_file_is_an_error_result(workspace: Path) -> None:
    ok, out = await call(make_toolbox(workspace), "read_file", {"path": "nope.txt"})
    assert not ok
    assert "no such file" in out


@pytest.mark.parametrize(
    ("content", "old", "expected"),
    [
        ("a = 1\nb = 2\n", "zzz", "was not found"),
        ("x = 1\nx = 1\n", "x = 1", "matched 2 times"),
        ("a = 1\n", "", "old_text is empty"),
    ],
)
async def test_edit_requires_exactly_one_match(
    workspace: Path, content: str, old: str, expected: str
) -> None:
    (workspace / "f.py").write_text(content)
    ok, out = await call(
        make_toolbox(workspace), "edit_file", {"path": "f.py", "old_text": old, "new_text": "Q"}
    )
    assert not ok
    assert expected in out
    assert (workspace / "f.py").read_text() == content


async def test_edit_replaces_the_single_match(workspace: Path) -> None:
    (workspace / "f.py").write_text("a = 1\nb = 2\n")
    ok, _ = await call(
        make_toolbox(workspace),
        "edit_file",
        {"path": "f.py", "old_text": "b = 2", "new_text": "b = 3"},
    )
    assert ok
    assert (workspace / "f.py").read_text() == "a = 1\nb = 3\n"


async def test_list_dir_lists_folders_first_and_hides_git(workspace: Path) -> None:
    (workspace / ".git").mkdir()
    (workspace / ".Git").mkdir()
    (workspace / "z.txt").write_text("z")
    (workspace / "src").mkdir()
    ok, out = await call(make_toolbox(workspace), "list_dir", {})
    assert ok
    assert out.splitlines() == ["src/", "z.txt  (1 bytes)"]


async def test_grep_skips_vendored_folders_and_outside_links(
    workspace: Path, tmp_path: Path
) -> None:
    (workspace / "app.py").write_text("def needle():\n    pass\n")
    for skipped in (".git", ".GIT", "node_modules", ".venv", "__pycache__", "dist"):
        (workspace / skipped).mkdir()
        (workspace / skipped / "x.py").write_text("needle\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "leak.py").write_text("needle\n")
    os.symlink(outside / "leak.py", workspace / "leak.py")
    ok, out = await call(make_toolbox(workspace), "grep_search", {"pattern": r"need\w+"})
    assert ok
    assert out == "app.py:1: def needle():"


async def test_grep_output_is_bounded(workspace: Path) -> None:
    (workspace / "many.txt").write_text("hit\n" * 1000)
    ok, out = await call(make_toolbox(workspace), "grep_search", {"pattern": "hit"})
    assert ok
    assert out.count("many.txt:") == 200
    assert "stopped at 200 matches" in out


async def test_grep_bad_regex_is_an_error_result(workspace: Path) -> None:
    ok, out = await call(make_toolbox(workspace), "grep_search", {"pattern": "("})
    assert not ok
    assert "invalid regular expression" in out


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        ("read_file", '{"path": "a.txt"', "not valid JSON"),
        ("read_file", "[1, 2]", "must be a JSON object"),
        ("read_file", {}, "missing required argument 'path'"),
        ("read_file", {"path": "a.txt", "mode": "r"}, "unexpected argument 'mode'"),
        ("read_file", {"path": 3}, "'path' must be a string"),
        ("write_file", {"path": "a.txt"}, "missing required argument 'content'"),
        ("delete_everything", {}, "unknown tool 'delete_everything'"),
    ],
)
async def test_untrusted_arguments_become_error_results(
    workspace: Path, name: str, args: Any, expected: str
) -> None:
    (workspace / "a.txt").write_text("A")
    ok, out = await call(make_toolbox(workspace), name, args)
    assert not ok
    assert expected in out
    assert sorted(p.name for p in workspace.iterdir()) == ["a.txt"]


async def test_unknown_tool_error_names_the_available_tools(workspace: Path) -> None:
    _ok, out = await call(make_toolbox(workspace), "readfile", {})
    assert "read_file" in out
    assert "write_file" in out


async def test_arguments_as_a_json_string_are_accepted(workspace: Path) -> None:
    (workspace / "a.txt").write_text("A")
    ok, out = await call(make_toolbox(workspace), "read_file", '{"path": "a.txt"}')
    assert (ok, out) == (True, "A")


async def test_escape_attempts_write_and_read_nothing_outside(
    workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("top secret")
    os.symlink(outside, workspace / "door")
    box = make_toolbox(workspace)
    attempts = [
        ("read_file", {"path": "../outside/secret.txt"}),
        ("read_file", {"path": str(outside / "secret.txt")}),
        ("read_file", {"path": "door/secret.txt"}),
        ("write_file", {"path": "../outside/new.txt", "content": "x"}),
        ("write_file", {"path": "door/new.txt", "content": "x"}),
        ("edit_file", {"path": "door/secret.txt", "old_text": "top", "new_text": "no"}),
        ("list_dir", {"path": ".."}),
        ("grep_search", {"pattern": "secret", "path": "door"}),
        ("write_file", {"path": ".git/hooks/pre-commit", "content": "rm -rf /"}),
        # on a case-insensitive disk (macOS, Windows) this is the real .git
        ("write_file", {"path": ".GIT/hooks/pre-commit", "content": "rm -rf /"}),
        ("write_file", {"path": "sub/.Git/config", "content": "x"}),
    ]
    for name, args in attempts:
        ok, out = await call(box, name, args)
        assert not ok, (name, args, out)
        assert "top secret" not in out
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == "top secret"
    assert sorted(p.name for p in workspace.iterdir()) == ["door"]


async def test_shell_refused_without_approval_does_not_run(workspace: Path) -> None:
    approver = RecordingApprover(answer=False)
    box = Toolbox([NativeTools(Workspace(workspace), approver)])
    ok, out = await call(box, "run_shell", {"command": "touch ran.txt"})
    assert not ok
    assert "did not approve" in out
    assert approver.asked == [("touch ran.txt", workspace.resolve())]
    assert not (workspace / "ran.txt").exists()


async def test_shell_runs_in_the_workspace_when_approved(workspace: Path) -> None:
    ok, out = await call(
        make_toolbox(workspace, allow_shell=True),
        "run_shell",
        {"command": "pwd; echo oops >&2; exit 3"},
    )
    assert not ok  # a non-zero exit is a failed result the model can read
    assert out.splitlines() == ["exit code 3", str(workspace.resolve()), "oops"]


async def test_shell_output_is_capped(workspace: Path) -> None:
    ok, out = await call(
        make_toolbox(workspace, allow_shell=True),
        "run_shell",
        {"command": "yes loki | head -c 200000"},
    )
    assert ok
    assert len(out) <= TOOL_RESULT_CAP
    assert "cut" in out


async def test_a_catastrophic_regex_is_an_error_and_the_loop_keeps_running(
    workspace: Path,
) -> None:
    # a 1 s budget given to the tools (the module constant is only their default)
    box = Toolbox([NativeTools(Workspace(workspace), FixedApprover(False), grep_budget_s=1.0)])
    (workspace / "a.txt").write_text("a" * 40 + "!\n")
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticker = asyncio.create_task(tick())
    try:
        # exponential backtracking: with `re` this never ends and holds the GIL meanwhile
        # (the wait only guards a hang: the budget is 1 s, a loaded machine may stretch it)
        ok, out = await asyncio.wait_for(call(box, "grep_search", {"pattern": r"(a|aa)+$"}), 120)
    finally:
        ticker.cancel()
    assert not ok
    assert "took too long" in out
    assert "a.txt:1" in out
    assert ticks > 5  # the event loop went on while the pattern ran


def _fifo(workspace: Path) -> Path:
    pipe = workspace / "pipe"
    os.mkfifo(pipe)
    return pipe


@pytest.mark.timeout(20)  # before the fix, opening the pipe blocked the whole event loop
@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("read_file", {"path": "pipe"}),
        ("edit_file", {"path": "pipe", "old_text": "a", "new_text": "b"}),
    ],
)
async def test_a_fifo_is_refused_not_waited_on(workspace: Path, name: str, args: Any) -> None:
    _fifo(workspace)
    ok, out = await asyncio.wait_for(call(make_toolbox(workspace), name, args), 10)
    assert not ok
    assert "not a regular file" in out


@pytest.mark.timeout(20)
async def test_grep_skips_fifos(workspace: Path) -> None:
    _fifo(workspace)
    (workspace / "a.txt").write_text("hello\n")
    ok, out = await asyncio.wait_for(
        call(make_toolbox(workspace), "grep_search", {"pattern": "hello"}), 10
    )
    assert (ok, out) == (True, "a.txt:1: hello")
