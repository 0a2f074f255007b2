"""Review before writing: writes and edits wait for the approver, the diff in hand."""

from __future__ import annotations

from pathlib import Path

from loki_desktop.core.file_change import FileChange
from loki_desktop.core.tools.jail import Workspace
from loki_desktop.core.tools.native import NativeTools
from loki_desktop.core.tools.toolbox import Toolbox


class Reviewer:
    """Answers as told and keeps what it was shown; `meanwhile` runs while it "waits"."""

    def __init__(self, answer: bool, meanwhile: Path | None = None) -> None:
        self.answer = answer
        self.meanwhile = meanwhile
        self.shown: list[FileChange] = []

    async def approve_shell(self, command: str, cwd: Path) -> bool:
        return False

    async def approve_write(self, change: FileChange, cwd: Path) -> bool:
        self.shown.append(change)
        # what a file on disk looks like while the person reads the dialog
        assert not (cwd / change.path).exists() or change.kind != "added"
        if self.meanwhile is not None:
            self.meanwhile.write_text("changed by the person\n")
        return self.answer


def box(root: Path, reviewer: Reviewer, review: bool = True) -> Toolbox:
    return Toolbox([NativeTools(Workspace(root), reviewer, review_writes=review)])


async def test_a_refused_write_leaves_the_file_untouched(workspace: Path) -> None:
    target = workspace / "keep.txt"
    target.write_text("original\n")
    reviewer = Reviewer(answer=False)
    outcome = await box(workspace, reviewer).call(
        "write_file", {"path": "keep.txt", "content": "replaced\n"}
    )
    assert not outcome.ok
    assert "did not approve" in outcome.output
    assert target.read_text() == "original\n"
    assert outcome.change is None
    (shown,) = reviewer.shown
    assert "-original\n+replaced\n" in shown.diff


async def test_a_refused_new_file_makes_no_folder(workspace: Path) -> None:
    reviewer = Reviewer(answer=False)
    await box(workspace, reviewer).call("write_file", {"path": "deep/er/new.txt", "content": "x"})
    assert not (workspace / "deep").exists()
    assert reviewer.shown[0].path == "deep/er/new.txt"
    assert reviewer.shown[0].kind == "added"


async def test_an_approved_edit_is_written_with_its_change(workspace: Path) -> None:
    (workspace / "e.py").write_text("a = 1\n")
    reviewer = Reviewer(answer=True)
    outcome = await box(workspace, reviewer).call(
        "edit_file", {"path": "e.py", "old_text": "1", "new_text": "2"}
    )
    assert outcome.ok
    assert (workspace / "e.py").read_text() == "a = 2\n"
    assert outcome.change == reviewer.shown[0]


async def test_a_file_changed_while_waiting_is_not_overwritten(workspace: Path) -> None:
    target = workspace / "busy.txt"
    target.write_text("before\n")
    reviewer = Reviewer(answer=True, meanwhile=target)
    outcome = await box(workspace, reviewer).call(
        "write_file", {"path": "busy.txt", "content": "from the model\n"}
    )
    assert not outcome.ok
    assert "changed on disk" in outcome.output
    assert target.read_text() == "changed by the person\n"


async def test_with_the_setting_off_nothing_is_asked(workspace: Path) -> None:
    reviewer = Reviewer(answer=False)
    outcome = await box(workspace, reviewer, review=False).call(
        "write_file", {"path": "free.txt", "content": "ok\n"}
    )
    assert outcome.ok
    assert reviewer.shown == []
    assert (workspace / "free.txt").read_text() == "ok\n"
