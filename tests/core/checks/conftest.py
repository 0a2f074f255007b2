"""Fixtures of the check tests: the corpus copied into a private folder, the checkers."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from loki_desktop.core.checks.registry import Checkers
from tests.core.checks.corpus import CORPUS


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A copy of tests/corpus/checks: checks must never write, even into the copy."""
    copy = tmp_path / "corpus"
    shutil.copytree(CORPUS, copy)
    return copy


@pytest.fixture
def checkers() -> Checkers:
    return Checkers()
