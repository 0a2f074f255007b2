"""A holder's changes laid over the file's current settings: what another writer changed
meanwhile stays, what this holder changed wins."""

from __future__ import annotations

from loki_desktop.core.settings import Settings
from loki_desktop.core.settings_changes import lay_changes, snapshot, take_in


def test_only_the_fields_the_holder_changed_are_laid() -> None:
    held = Settings(model="a", language="fr", ui={"geometry": "g0", "splitter": [1, 2]})
    read = snapshot(held)
    held.language = "en"
    held.ui["geometry"] = "g1"
    held.ui.pop("splitter")
    held.ui["sidebar"] = True
    # meanwhile another writer changed the model and one key of the same object
    current = Settings(model="b", language="fr", ui={"geometry": "g0", "splitter": [1, 2]})
    current.ui["theme"] = "dark"
    lay_changes(read, held, current)
    assert (current.model, current.language) == ("b", "en")
    assert current.ui == {"geometry": "g1", "sidebar": True, "theme": "dark"}


def test_left_fields_are_never_laid() -> None:
    held = Settings(mcp_servers={"fetch": {"enabled": False}})
    read = snapshot(held)
    held.mcp_servers["fetch"] = {"enabled": True}
    current = Settings(mcp_servers={"fetch": {"enabled": False, "sampling": "never"}})
    lay_changes(read, held, current, leave=frozenset({"mcp_servers"}))
    assert current.mcp_servers == {"fetch": {"enabled": False, "sampling": "never"}}


def test_lists_are_taken_whole_and_the_snapshot_is_apart() -> None:
    held = Settings(recent_workspaces=["/a", "/b"])
    read = snapshot(held)
    held.recent_workspaces.insert(0, "/c")  # in place: the snapshot must not follow
    current = Settings(recent_workspaces=["/a", "/b", "/z"])
    lay_changes(read, held, current)
    assert current.recent_workspaces == ["/c", "/a", "/b"]


def test_take_in_keeps_the_holder_object() -> None:
    held = Settings(model="a")
    written = Settings(model="b", ui={"x": 1})
    take_in(held, written)
    assert held == written
    written.ui["x"] = 2
    assert held.ui == {"x": 1}
