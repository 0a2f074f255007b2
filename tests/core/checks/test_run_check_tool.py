"""The run_check tool: jailed in the workspace, its report carried to the agent in `extra`."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.checks.registry import Checkers
from loki_desktop.core.events import CheckReport, Problem
from loki_desktop.core.tools.check_tool import run_check_tool
from loki_desktop.core.tools.jail import Workspace
from loki_desktop.core.tools.native import NativeTools
from loki_desktop.core.tools.toolbox import Toolbox


def toolbox(root: Path) -> Toolbox:
    jail = Workspace(root)
    native = NativeTools(jail, FixedApprover(False), extra_tools=[run_check_tool(jail, Checkers())])
    return Toolbox([native])


async def test_the_model_sees_the_tool_with_a_path_argument(workspace: Path) -> None:
    spec = next(s for s in toolbox(workspace).specs() if s.name == "run_check")

    assert spec.parameters["required"] == ["path"]
    assert "without running it" in spec.description


async def test_a_broken_file_gives_a_report_in_extra(workspace: Path) -> None:
    (workspace / "pkg").mkdir()
    (workspace / "pkg" / "m.py").write_text("print(missing)\n")

    outcome = await toolbox(workspace).call("run_check", {"path": "pkg/m.py"})

    assert outcome.ok
    assert outcome.check_report == CheckReport(
        "pkg/m.py", False, (Problem(1, 7, "F821 Undefined name `missing`"),)
    )
    assert outcome.summary == "pkg/m.py : 1 problème"


async def test_a_clean_file_gives_a_passing_report(workspace: Path) -> None:
    (workspace / "data.json").write_text('{"a": 1}\n')

    outcome = await toolbox(workspace).call("run_check", {"path": "./data.json"})

    assert outcome.check_report == CheckReport("data.json", True)


async def test_paths_outside_the_workspace_are_refused(workspace: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.py").write_text("x = 1\n")

    outcome = await toolbox(workspace).call("run_check", {"path": "../secret.py"})

    assert not outcome.ok
    assert "outside the workspace" in outcome.output
    assert outcome.check_report is None


async def test_missing_files_folders_and_other_kinds(workspace: Path) -> None:
    (workspace / "docs").mkdir()
    (workspace / "README.md").write_text("# hi\n")
    box = toolbox(workspace)

    missing = await box.call("run_check", {"path": "nope.py"})
    folder = await box.call("run_check", {"path": "docs"})
    other = await box.call("run_check", {"path": "README.md"})
    bad_args = await box.call("run_check", {"file": "x.py"})

    assert not missing.ok
    assert "no such file" in missing.output
    assert not folder.ok
    assert "folder" in folder.output
    assert other.ok
    assert "No automatic check exists for .md files" in other.output
    assert other.check_report is None
    assert not bad_args.ok
    assert "missing required argument 'path'" in bad_args.output


@pytest.mark.timeout(20)  # before the fix, reading the pipe blocked until a writer came
@pytest.mark.usefixtures("english")
async def test_a_fifo_is_refused_not_waited_on(workspace: Path) -> None:
    os.mkfifo(workspace / "pipe.py")
    outcome = await asyncio.wait_for(toolbox(workspace).call("run_check", {"path": "pipe.py"}), 10)
    assert not outcome.ok
    assert "not a regular file" in outcome.output


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        (
            "web/app.ts",
            "const total = add(1, 2;\n",
            Problem(1, 23, "erreur de syntaxe : « ) » manquant"),
        ),
        ("compose.yaml", "a: 1\na: 2\n", Problem(2, 1, "clé « a » en double (déjà ligne 1)")),
    ],
)
async def test_the_new_kinds_are_checked_by_the_tool(
    workspace: Path, name: str, text: str, problem: Problem
) -> None:
    (workspace / name).parent.mkdir(parents=True, exist_ok=True)
    (workspace / name).write_text(text)

    outcome = await toolbox(workspace).call("run_check", {"path": name})

    assert outcome.check_report == CheckReport(name, False, (problem,))
