"""What a write or an edit changes: the diff, its counts, binaries, huge files, the tool outcome."""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path

import pytest

from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.assembly import TurnOptions, build_agent
from loki_desktop.core.events import ToolResult, event_to_json
from loki_desktop.core.file_change import FileChange
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.settings import Settings
from loki_desktop.core.tools import diffs
from loki_desktop.core.tools.diffs import compute_change
from loki_desktop.core.tools.jail import Workspace
from loki_desktop.core.tools.native import NativeTools
from loki_desktop.core.tools.toolbox import Toolbox
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent, turn
from tests.fakes.ollama_server import FakeOllama, Reply


def apply_unified(old: str, diff: str) -> str:
    """Rebuild the new text from the old one and a unified diff (proves the diff is right)."""
    old_lines = old.splitlines(keepends=True)
    out: list[str] = []
    at = 0
    previous = ""
    lines = diff.splitlines(keepends=True)[2:]  # past --- / +++
    for line in lines:
        hunk = re.match(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", line)
        if hunk:
            start = int(hunk.group(1)) - (0 if hunk.group(2) == "0" else 1)
            out += old_lines[at:start]
            at = start
        elif line.startswith("\\"):
            if not previous.startswith("-"):  # the marker follows the line it is about
                out[-1] = out[-1].rstrip("\n")
        elif line.startswith("-"):
            at += 1
        elif line.startswith("+"):
            out.append(line[1:])
        else:
            out.append(line[1:])
            at += 1
        previous = line
    out += old_lines[at:]
    return "".join(out)


def test_a_modified_file_gets_a_unified_diff_and_exact_counts() -> None:
    old = "".join(f"line {i}\n" for i in range(1, 21))
    new = old.replace("line 5\n", "line five\n").replace("line 15\n", "") + "line 21\n"
    change = compute_change("src/a.py", old.encode(), new.encode())
    assert (change.path, change.kind) == ("src/a.py", "modified")
    assert (change.added, change.removed) == (2, 2)
    assert change.diff.startswith("--- a/src/a.py\n+++ b/src/a.py\n@@ -2,7 +2,7 @@\n")
    assert "-line 5\n+line five\n" in change.diff
    assert apply_unified(old, change.diff) == new
    assert change.content is None
    assert (change.truncated, change.coarse, change.omitted) == (False, False, "")


def test_a_new_file_is_added_with_its_content() -> None:
    change = compute_change("n.py", None, b"print(1)\nprint(2)\n")
    assert (change.kind, change.added, change.removed) == ("added", 2, 0)
    assert change.content == "print(1)\nprint(2)\n"
    assert change.diff.startswith("--- /dev/null\n+++ b/n.py\n@@ -0,0 +1,2 @@\n+print(1)\n")


def test_a_deleted_file_removes_every_line() -> None:
    change = compute_change("old.txt", b"a\nb\nc", None)
    assert (change.kind, change.added, change.removed) == ("deleted", 0, 3)
    assert change.diff.startswith("--- a/old.txt\n+++ /dev/null\n@@ -1,3 +0,0 @@\n")
    assert change.diff.endswith("-c\n\\ No newline at end of file\n")


def test_a_missing_final_line_break_is_marked_as_git_does() -> None:
    change = compute_change("t.txt", b"a\nb", b"a\nb\n")
    assert change.diff.endswith("-b\n\\ No newline at end of file\n+b\n")
    assert (change.added, change.removed) == (1, 1)
    assert apply_unified("a\nb", change.diff) == "a\nb\n"


def test_the_same_content_is_a_change_with_nothing_in_it() -> None:
    change = compute_change("same.txt", b"x\n", b"x\n")
    assert (change.kind, change.diff, change.added, change.removed) == ("modified", "", 0, 0)


def test_a_line_that_starts_with_dashes_is_counted_as_a_line() -> None:
    change = compute_change("m.md", b"--- title\n+++ x\n", b"++ title\n")
    assert (change.added, change.removed) == (1, 2)


def test_a_binary_side_gives_no_diff() -> None:
    change = compute_change("logo.png", b"\x89PNG\r\n\x1a\n\x00\x00", b"now text\n")
    assert (change.omitted, change.diff, change.added, change.removed) == ("binary", "", 0, 0)
    latin1 = compute_change("old.txt", "café\n".encode("latin-1"), b"cafe\n")
    assert latin1.omitted == "binary"


def test_a_file_over_the_input_limit_is_not_compared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diffs, "DIFF_INPUT_LIMIT", 1000)
    change = compute_change("big.log", b"x\n" * 600, b"y\n")
    assert (change.omitted, change.diff) == ("too_large", "")


def test_a_huge_diff_is_cut_but_its_counts_stay_exact() -> None:
    old = "".join(f"old {i}\n" for i in range(30_000))
    new = "".join(f"new {i}\n" for i in range(30_000))
    change = compute_change("huge.txt", old.encode(), new.encode())
    assert (change.added, change.removed) == (30_000, 30_000)
    assert change.truncated
    assert len(change.diff) <= diffs.DIFF_KEEP_CHARS
    assert change.diff.endswith("\n")  # cut at a line end


def test_far_apart_versions_get_one_coarse_hunk_that_still_applies() -> None:
    # every third line changed in a long file: difflib would take seconds
    old_lines = [f"line {i}\n" for i in range(6_000)]
    new_lines = [f"changed {i}\n" if i % 3 == 1 else line for i, line in enumerate(old_lines)]
    old, new = "".join(old_lines), "".join(new_lines)
    change = compute_change("wide.txt", old.encode(), new.encode())
    assert change.coarse
    assert not change.truncated or len(change.diff) <= diffs.DIFF_KEEP_CHARS
    # the first line and the last few are shared: the hunk starts and ends inside
    assert change.removed == change.added == 5_998
    small = compute_change("w.txt", b"keep\n" + old.encode(), b"keep\n" + new.encode())
    assert small.coarse
    trimmed = [f"l{i}\n" for i in range(50)]
    changed = list(trimmed)
    for i in range(1, 49, 3):
        changed[i] = f"c{i}\n"
    exact = compute_change("t.txt", "".join(trimmed).encode(), "".join(changed).encode())
    assert not exact.coarse


def test_a_coarse_hunk_applies(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diffs, "EXACT_WORK_LIMIT", 4)
    old = "".join(f"{i}\n" for i in range(20))
    new = old.replace("\n5\n", "\nfive\n").replace("\n9\n", "\nnine\n")
    change = compute_change("c.txt", old.encode(), new.encode())
    assert change.coarse
    assert apply_unified(old, change.diff) == new
    assert (change.added, change.removed) == (5, 5)


def test_a_new_file_keeps_a_capped_content() -> None:
    text = "x" * (diffs.CONTENT_KEEP_CHARS + 10)
    change = compute_change("long.txt", None, text.encode())
    assert change.content is not None
    assert len(change.content) == diffs.CONTENT_KEEP_CHARS
    assert change.truncated


def test_a_change_goes_through_json_and_back() -> None:
    change = compute_change("a/b.py", None, b"x = 1\n")
    again = FileChange.from_dict(json.loads(json.dumps(change.as_dict())))
    assert again == change
    assert set(change.as_dict()) >= {"path", "kind", "diff", "added", "removed"}
    assert FileChange.from_dict({"path": "x", "kind": "renamed"}) is None
    assert FileChange.from_dict("nothing") is None


# --- the tools ----------------------------------------------------------------------------


def tools(root: Path) -> Toolbox:
    return Toolbox([NativeTools(Workspace(root), FixedApprover(False))])


async def test_write_and_edit_put_the_change_in_their_outcome(workspace: Path) -> None:
    box = tools(workspace)
    created = await box.call("write_file", {"path": "sub/new.py", "content": "a = 1\n"})
    change = created.change
    assert change is not None
    assert (change.path, change.kind, change.added, change.content) == (
        "sub/new.py",
        "added",
        1,
        "a = 1\n",
    )
    edited = await box.call(
        "edit_file", {"path": "sub/new.py", "old_text": "a = 1", "new_text": "a = 2\nb = 3"}
    )
    change = edited.change
    assert change is not None
    assert (change.kind, change.added, change.removed) == ("modified", 2, 1)
    assert "-a = 1\n+a = 2\n+b = 3\n" in change.diff
    rewritten = await box.call("write_file", {"path": "sub/new.py", "content": "z\n"})
    change = rewritten.change
    assert change is not None
    assert (change.kind, change.added, change.removed) == ("modified", 1, 2)
    assert (workspace / "sub/new.py").read_text() == "z\n"


async def test_overwriting_a_binary_file_says_so(workspace: Path) -> None:
    (workspace / "img.bin").write_bytes(b"\x00\x01\x02")
    outcome = await tools(workspace).call("write_file", {"path": "img.bin", "content": "t\n"})
    change = outcome.change
    assert outcome.ok
    assert change is not None
    assert (change.kind, change.omitted) == ("modified", "binary")


async def test_a_failed_edit_carries_no_change(workspace: Path) -> None:
    (workspace / "f.txt").write_text("abc\n")
    outcome = await tools(workspace).call(
        "edit_file", {"path": "f.txt", "old_text": "zzz", "new_text": "y"}
    )
    assert not outcome.ok
    assert outcome.change is None


# --- through a turn: the event, its JSON line, the history ---------------------------------


async def test_a_turn_carries_the_change_to_its_event_and_the_history(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    (workspace / "s.py").write_text("x = 1\n")
    ollama.script(
        Reply.tool("edit_file", {"path": "s.py", "old_text": "x = 1", "new_text": "x = 2"}),
        Reply.text("Fait."),
    )
    events = await turn(make_agent(backend, store, workspace, skills=False), "change x")
    (result,) = [e for e in events if isinstance(e, ToolResult)]
    assert result.change is not None
    assert (result.change.path, result.change.added, result.change.removed) == ("s.py", 1, 1)
    assert event_to_json(result)["change"] == {
        "path": "s.py",
        "kind": "modified",
        "added": 1,
        "removed": 1,
    }
    session = events[-1].session
    assert session is not None
    (stored,) = [m for m in store.messages(session) if m.role == "tool"]
    assert stored.meta.change == result.change


async def test_with_review_on_the_cli_approver_refuses_writes_unless_allowed(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    settings = Settings(review_writes=True)
    for allow, expected in ((False, False), (True, True)):
        ollama.script(
            Reply.tool("write_file", {"path": f"w{allow}.txt", "content": "x\n"}),
            Reply.text("ok"),
        )
        agent = build_agent(
            settings=settings,
            backend=backend,
            store=store,
            workspace=workspace,
            approver=FixedApprover(False, allow_writes=allow),
            options=TurnOptions(skills=False),
        )
        events = await turn(agent, "écris")
        (result,) = [e for e in events if isinstance(e, ToolResult)]
        assert result.ok is expected
        assert (workspace / f"w{allow}.txt").exists() is expected


def test_the_diff_is_difflibs_unified_diff() -> None:
    old = "".join(f"line {i}\n" if i % 5 else "\n" for i in range(300))
    new = old.replace("line 42\n", "line 42 changed\n").replace("line 201\n", "") + "end"
    change = compute_change("x.txt", old.encode(), new.encode())
    expected = "".join(
        difflib.unified_diff(old.splitlines(True), new.splitlines(True), "a/x.txt", "b/x.txt")
    )
    # difflib leaves the last line without its break: git's marker follows it here
    assert change.diff == expected + "\n\\ No newline at end of file\n"
