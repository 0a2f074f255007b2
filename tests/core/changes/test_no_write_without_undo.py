"""No write without its way back: a change whose checkpoint cannot be kept is not made."""

from __future__ import annotations

import subprocess
from pathlib import Path

from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.assembly import TurnOptions, build_agent
from loki_desktop.core.changes.recorder import ChangeRecorder
from loki_desktop.core.changes.undo import apply, pick_turn, plan
from loki_desktop.core.events import ToolResult
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.ports import NOT_KEPT
from loki_desktop.core.settings import Settings
from loki_desktop.core.tools.jail import CheckpointRefused, Workspace
from loki_desktop.persistence.checkpoints import CheckpointFolder
from loki_desktop.persistence.history import History
from tests.agent_rig import turn
from tests.fakes.ollama_server import FakeOllama, Reply


def _agent(
    backend: OllamaBackend, store: History, workspace: Path, points: CheckpointFolder, **approve
):
    agent = build_agent(
        settings=Settings(),
        backend=backend,
        store=store,
        workspace=workspace,
        approver=FixedApprover(False, **approve),
        options=TurnOptions(skills=False),
        checkpoints=points,
    )
    assert agent.changes is not None
    agent.changes.budget_bytes = 1000
    return agent


async def test_a_file_over_the_budget_is_not_overwritten_and_the_model_is_told(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "big.txt").write_text("a" * 2000)
    ollama.script(
        Reply.tool("write_file", {"path": "big.txt", "content": "nouveau"}),
        Reply.text("Je n'ai pas pu."),
    )
    points = CheckpointFolder(tmp_path / "checkpoints")
    events = await turn(_agent(backend, store, workspace, points), "Réécris big.txt")
    (result,) = [e for e in events if isinstance(e, ToolResult)]
    assert not result.ok
    assert result.summary.startswith("big.txt n'a pas été écrit")
    assert "budget" in result.summary
    assert "\n" not in result.summary  # one sentence, for the card and the CLI
    assert (workspace / "big.txt").read_text() == "a" * 2000
    told = [m["content"] for m in ollama.chat_requests[1]["messages"] if m["role"] == "tool"]
    assert "NOT written" in told[0]
    assert "checkpoint budget" in told[0]
    assert points.turns(events[-1].session or "") == []
    points.close()


async def test_the_person_may_allow_that_one_write_without_undo(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "big.txt").write_text("a" * 2000)
    (workspace / "small.txt").write_text("b" * 2000)
    ollama.script(
        Reply.tool("write_file", {"path": "big.txt", "content": "nouveau"}), Reply.text("Fait.")
    )
    points = CheckpointFolder(tmp_path / "checkpoints")
    agent = _agent(backend, store, workspace, points, allow_unkept=True)
    events = await turn(agent, "Réécris big.txt")
    (result,) = [e for e in events if isinstance(e, ToolResult)]
    assert result.ok
    assert (workspace / "big.txt").read_text() == "nouveau"
    (recorded,) = points.turns(events[-1].session or "")
    assert [(f.path, f.before) for f in recorded.files] == [("big.txt", NOT_KEPT)]
    # once: the next refused write of the turn is asked about again, not waved through
    assert agent.changes is not None
    assert agent.changes._unkept_ok == set()
    points.close()


def test_a_new_state_too_big_to_keep_still_leaves_the_change_undoable(
    workspace: Path, tmp_path: Path
) -> None:
    (workspace / "f.txt").write_text("petit\n")
    points = CheckpointFolder(tmp_path / "checkpoints")
    recorder = ChangeRecorder(points, workspace, 1)
    recorder.begin("c", 1)
    jail = Workspace(workspace, observer=recorder)
    with jail.locate("f.txt") as entry:
        jail.write(entry, b"x" * 1_500_000)  # over the 1 MB budget: no blob, but its digest
    undo = plan(pick_turn(points, "c", None, "undo"), "undo")
    assert undo.conflicts == []
    report = apply(points, undo)
    assert report.complete
    assert (workspace / "f.txt").read_text() == "petit\n"
    points.close()


def test_a_refused_write_can_be_retried_once_allowed(workspace: Path, tmp_path: Path) -> None:
    (workspace / "f.txt").write_bytes(b"z" * 2_000_000)
    points = CheckpointFolder(tmp_path / "checkpoints")
    recorder = ChangeRecorder(points, workspace, 1)
    recorder.begin("c", 1)
    jail = Workspace(workspace, observer=recorder)
    refused = None
    with jail.locate("f.txt") as entry:
        try:
            jail.write(entry, b"new")
        except CheckpointRefused as exc:
            refused = exc
    assert refused is not None
    assert (workspace / "f.txt").read_bytes() == b"z" * 2_000_000
    refused.allow_once()
    with jail.locate("f.txt") as entry:
        jail.write(entry, b"new")
    assert (workspace / "f.txt").read_bytes() == b"new"
    points.close()


def test_half_written_blobs_of_a_killed_process_are_removed_at_start(tmp_path: Path) -> None:
    child = subprocess.Popen(["true"])  # a pid that has ended
    child.wait()
    folder = tmp_path / "checkpoints" / "blobs" / "ab"
    folder.mkdir(parents=True)
    partial = folder / f".abcdef.{child.pid}.140000.part"
    partial.write_bytes(b"half")
    kept = folder / "abcdef"
    kept.write_bytes(b"whole")
    points = CheckpointFolder(tmp_path / "checkpoints")
    assert not partial.exists()
    assert kept.read_bytes() == b"whole"
    points.close()
