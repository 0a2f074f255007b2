"""The conversations bench runs and reports its two figures (no timing asserted here)."""

from __future__ import annotations

import pytest

from bench import conversations


def test_the_conversations_bench_reports_export_and_branch_opening(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(conversations, "TURNS", 60)
    monkeypatch.setattr(conversations, "BRANCHES", 4)
    monkeypatch.setattr(conversations, "EXPORT_RUNS", 1)
    monkeypatch.setattr(conversations, "OPEN_RUNS", 2)

    export, opening = conversations.measure()

    assert (export.unit, export.budget, export.runs) == ("s", 1.0, 1)
    assert "240 messages" in export.note
    assert (opening.unit, opening.budget, opening.runs) == ("ms", 100.0, 2)
    assert "60 turns" in opening.note
