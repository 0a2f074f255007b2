"""A French system locale does not hide where a shell script breaks (bash translates "line")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from loki_desktop.core.checks.registry import Checkers


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
async def test_bash_positions_are_read_under_a_french_locale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANGUAGE", "fr")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    script = tmp_path / "broken.sh"
    script.write_text('#!/bin/bash\necho ok\nif true; then\n  echo "x\n', encoding="utf-8")
    result = await Checkers().check(script)
    bash = [p for p in result.problems if "bash -n" in p.message]
    assert bash, result
    assert bash[0].line > 1, bash[0]  # bash's own line, not the fallback at line 1
