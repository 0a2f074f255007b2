"""The checkpoint folder: an unreadable index is moved aside, never a crash; blobs are checked."""

from __future__ import annotations

from pathlib import Path

from loki_desktop.core.changes.recorder import ChangeRecorder
from loki_desktop.core.changes.undo import apply, plan
from loki_desktop.core.tools.jail import Workspace
from loki_desktop.persistence.checkpoints import CheckpointFolder


def test_an_unreadable_index_is_moved_aside_with_a_notice(tmp_path: Path) -> None:
    folder = tmp_path / "checkpoints"
    folder.mkdir()
    (folder / "index.db").write_bytes(b"not a database" * 100)
    points = CheckpointFolder(folder)
    (notice,) = points.take_notices()
    assert "mis de côté" in notice
    assert points.take_notices() == []
    assert points.turns("any") == []
    assert list(folder.glob("index.corrupt-*.db"))
    points.close()


def test_a_damaged_checkpoint_is_not_written_back(tmp_path: Path, workspace: Path) -> None:
    (workspace / "f.txt").write_text("old\n")
    points = CheckpointFolder(tmp_path / "checkpoints")
    recorder = ChangeRecorder(points, workspace, 10)
    recorder.begin("c", 1)
    jail = Workspace(workspace, observer=recorder)
    with jail.locate("f.txt") as entry:
        jail.write(entry, b"new\n")
    (turn,) = points.turns("c")
    (change,) = turn.files
    blob = tmp_path / "checkpoints" / "blobs" / (change.before or "")[:2] / (change.before or "")
    blob.write_bytes(b"olX\n")  # a disk error, or a blob cut by a power loss
    report = apply(points, plan(turn, "undo"))
    ((step, why),) = report.failed
    assert step.path == "f.txt"
    assert "abîmé" in why
    assert (workspace / "f.txt").read_text() == "new\n"
    points.close()


def test_why_an_undo_failed_is_said_in_french(tmp_path: Path, workspace: Path) -> None:
    (workspace / "f.txt").write_text("old\n")
    points = CheckpointFolder(tmp_path / "checkpoints")
    recorder = ChangeRecorder(points, workspace, 10)
    recorder.begin("c", 1)
    jail = Workspace(workspace, observer=recorder)
    with jail.locate("f.txt") as entry:
        jail.write(entry, b"new\n")
    (workspace / "f.txt").unlink()
    (workspace / "f.txt").mkdir()  # a folder where the file was
    (turn,) = points.turns("c")
    report = apply(points, plan(turn, "undo"), lambda _step: True)
    ((step, why),) = report.failed
    assert step.path == "f.txt"
    assert why == "c'est un dossier, pas un fichier"
    points.close()
