"""Graders: each passes on the right outcome and fails on a wrong one."""

from __future__ import annotations

from pathlib import Path

import pytest

from loki_desktop.core.evaluation.graders import grade, numbers_in
from loki_desktop.core.evaluation.suite_basic import basic_suite
from loki_desktop.core.evaluation.tasks import (
    AnswerContains,
    AnswerNumber,
    FileContains,
    FileEquals,
    HtmlValid,
    TestsPass,
)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Le total est de 118,50 €.", 118.5),
        ("total: 1,234.5 units", 1234.5),
        ("1 234,5 (espace fine)", 1234.5),
        ("1\u202f234", 1234),
        ("moins -1 degré", -1),
        ("3,142", 3.142),
        ("3,142", 3142),  # both readings of an ambiguous comma
    ],
)
def test_numbers_in_french_and_english(text: str, value: float) -> None:
    assert value in numbers_in(text)


async def test_file_graders(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Bonjour  \nle monde\n")
    right = await grade(
        (FileEquals("a.txt", "Bonjour\nle monde"), FileContains("a.txt", ("MONDE",))), tmp_path, ""
    )
    assert all(v.passed for v in right)
    wrong = await grade(
        (
            FileEquals("a.txt", "Bonjour"),
            FileContains("a.txt", ("bonjour",), absent=("monde",)),
            FileEquals("missing.txt", "x"),
        ),
        tmp_path,
        "",
    )
    assert not any(v.passed for v in wrong)
    assert "missing.txt is missing" in wrong[2].reason


async def test_tests_pass_runs_the_tasks_own_tests(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (tmp_path / "test_calc.py").write_text(
        "import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n"
        "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n"
    )
    (failed,) = await grade((TestsPass(),), tmp_path, "")
    assert not failed.passed
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (passed,) = await grade((TestsPass(),), tmp_path, "")
    assert passed.passed, passed.reason


async def test_html_valid_needs_its_links(tmp_path: Path) -> None:
    page = (
        '<!DOCTYPE html><html lang="fr"><head><meta charset="utf-8"><title>t</title>'
        '<link rel="stylesheet" href="style.css"></head><body><h1>Mon CV</h1></body></html>'
    )
    (tmp_path / "index.html").write_text(page)
    (missing,) = await grade((HtmlValid("index.html", ("Mon CV",)),), tmp_path, "")
    assert not missing.passed
    assert "style.css" in missing.reason
    (tmp_path / "style.css").write_text("h1 { color: red; }\n")
    (ok,) = await grade((HtmlValid("index.html", ("Mon CV",)),), tmp_path, "")
    assert ok.passed, ok.reason


async def test_answer_graders(tmp_path: Path) -> None:
    graders = (AnswerNumber(118.5, 0.01), AnswerContains(("ORCHIDEE",)))
    assert all(v.passed for v in await grade(graders, tmp_path, "118,50 € ; code orchidee"))
    assert not any(v.passed for v in await grade(graders, tmp_path, "environ 120 €"))


def test_the_basic_suite_has_forty_tasks_of_every_kind() -> None:
    suite = basic_suite()
    assert len(suite) == 40
    assert len({task.id for task in suite}) == 40
    assert {task.kind for task in suite} == {"file", "fix", "web", "data", "tool"}
    for task in suite:
        assert task.graders
        assert task.reference.answer
        if task.kind == "fix":  # the tests are graded unchanged: editing them is cheating
            assert any(
                isinstance(g, FileEquals) and g.path.startswith("test_") for g in task.graders
            )
