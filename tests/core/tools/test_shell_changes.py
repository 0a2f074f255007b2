"""run_shell names the files the command changed: a look at sizes and times before and after."""

from __future__ import annotations

from pathlib import Path

from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.events import ChangedFile
from loki_desktop.core.tools.jail import Workspace
from loki_desktop.core.tools.native import NativeTools


async def test_the_command_s_changes_reach_the_outcome_and_the_model(workspace: Path) -> None:
    (workspace / "kept.txt").write_text("a\n")
    (workspace / "gone.txt").write_text("bye\n")
    (workspace / "same.txt").write_text("untouched\n")
    (workspace / "node_modules").mkdir()
    tools = NativeTools(Workspace(workspace), FixedApprover(True))
    outcome = await tools.call(
        "run_shell",
        {
            "command": "echo b >> kept.txt; rm gone.txt; mkdir -p sub; echo new > sub/new.txt;"
            " echo dep > node_modules/dep.js"
        },
    )
    assert outcome.ok, outcome.output
    assert outcome.shell_changes == (
        ChangedFile("gone.txt", "deleted"),
        ChangedFile("kept.txt", "modified"),
        ChangedFile("sub/new.txt", "added"),
    )
    assert outcome.output.endswith(
        "[files changed by the command: gone.txt (deleted), kept.txt (modified), "
        "sub/new.txt (added)]"
    )


async def test_a_command_that_changes_nothing_lists_nothing(workspace: Path) -> None:
    (workspace / "a.txt").write_text("a\n")
    tools = NativeTools(Workspace(workspace), FixedApprover(True))
    outcome = await tools.call("run_shell", {"command": "cat a.txt"})
    assert outcome.shell_changes == ()
    assert "files changed" not in outcome.output
