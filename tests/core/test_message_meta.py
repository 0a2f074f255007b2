"""Typed message metadata: one conversion to and from the stored JSON, tolerant of old rows."""

from __future__ import annotations

import json

import pytest

from loki_desktop.core.events import ChangedFile, CheckReport, Problem, SkillUsed
from loki_desktop.core.file_change import FileChange
from loki_desktop.core.message_meta import NO_META, MessageMeta, UndoNote

EVERY_KIND = [
    MessageMeta(skill=SkillUsed("debogage", "Débogage")),
    MessageMeta(
        ok=False,
        summary="a.py écrit",
        change=FileChange("a.py", "modified", "@@ -1 +1 @@\n-x\n+y\n", 1, 1),
        check=CheckReport("a.py", False, (Problem(3, 1, "F821 Undefined name `y`"),)),
        shell_changes=(ChangedFile("b.txt", "added"), ChangedFile("c.txt", "deleted")),
    ),
    MessageMeta(check=CheckReport("n.ts", True, (), skipped="tsc absent")),
    MessageMeta(text_call="json", prompted_tools=True),
    MessageMeta(undo=UndoNote("redo", 4, ("a.py",), ("new.py",), ("kept.py",))),
    NO_META,
]


@pytest.mark.parametrize("meta", EVERY_KIND)
def test_every_kind_round_trips_through_json_text(meta: MessageMeta) -> None:
    stored = json.loads(json.dumps(meta.to_json()))
    assert MessageMeta.from_json(stored) == meta


def test_nothing_set_stores_nothing() -> None:
    assert MessageMeta().to_json() == {}
    assert MessageMeta(ok=True, summary="").to_json() == {}


def test_the_stored_keys_are_those_older_versions_wrote_and_read() -> None:
    """An older version reading a new row finds its keys where it looked for them."""
    data = MessageMeta(
        skill=SkillUsed("x", "X"),
        ok=False,
        summary="s",
        shell_changes=(ChangedFile("b", "added"),),
        text_call="json",
        prompted_tools=True,
    ).to_json()
    assert data == {
        "skill": {"name": "x", "title": "X"},
        "ok": False,
        "summary": "s",
        "shell_changes": [{"path": "b", "kind": "added"}],
        "text_call": "json",
        "tools": "prompted",
    }


def test_rows_of_older_versions_read_with_defaults() -> None:
    # a tool row of the first versions: ok and summary only, `skipped` written as null
    old_tool = {
        "ok": True,
        "summary": "a.py écrit",
        "check": {"path": "a.py", "ok": False, "skipped": None, "problems": [{"line": 3}]},
    }
    assert MessageMeta.from_json(old_tool) == MessageMeta(
        summary="a.py écrit", check=CheckReport("a.py", False, (Problem(3, 0, ""),))
    )
    # a check without `ok` is judged by its problems
    assert MessageMeta.from_json({"check": {"path": "b.py"}}).check == CheckReport("b.py", True)
    # a skill without a title, an undo note missing its lists and its turn
    assert MessageMeta.from_json({"skill": {"name": "x"}}).skill == SkillUsed("x", "")
    assert MessageMeta.from_json({"undo": {"direction": "undo"}}).undo == UndoNote("undo", None)


def test_unknown_keys_and_wrong_shapes_are_passed_over() -> None:
    damaged = {
        "ok": "yes",  # not False: the tool is taken to have worked, as the window did
        "summary": 12,
        "change": {"path": "a.py", "kind": "renamed"},
        "check": {"path": "a.py", "ok": False, "problems": "F821"},
        "shell_changes": ["b.txt", {"path": "c.txt"}],
        "skill": "debogage",
        "undo": {"direction": "sideways", "turn": "3", "restored": "a.py"},
        "mcp_server": "echo",  # a key this version does not know
        "tools": "native",
    }
    assert MessageMeta.from_json(damaged) == MessageMeta(
        check=CheckReport("a.py", False),
        shell_changes=(ChangedFile("c.txt", ""),),
        undo=UndoNote("undo", None),
    )


@pytest.mark.parametrize("data", [None, [], "texte", 3])
def test_a_row_that_is_no_object_carries_nothing(data: object) -> None:
    assert MessageMeta.from_json(data) == NO_META
