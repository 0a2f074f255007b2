"""The HTML check: structure with HTML's own rules, missing linked files, inline scripts."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from loki_desktop.core.checks.registry import Checkers

# the English wording of Loki's checker messages is held here (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("english")

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")


async def check(folder: Path, checkers: Checkers, html: str | bytes, root: Path | None = None):
    path = folder / "index.html"
    if isinstance(html, str):
        path.write_text(html, encoding="utf-8")
    else:
        path.write_bytes(html)
    return await checkers.check(path, root if root is not None else folder)


def found(result) -> list[tuple[int, int, str]]:
    return [(p.line, p.col, p.message) for p in result.problems]


async def test_a_missing_doctype_entities_and_a_bare_less_than_are_not_problems(
    tmp_path: Path, checkers: Checkers
) -> None:
    result = await check(tmp_path, checkers, "<p>a < b &copy 2024 & co <?php echo 1 ?></p>\n")

    assert result.problems == ()


async def test_template_content_is_not_judged_as_body_content(
    tmp_path: Path, checkers: Checkers
) -> None:
    html = "<!DOCTYPE html>\n<template><tr><td>cell</td></tr></template>\n<table></table>\n"

    result = await check(tmp_path, checkers, html)

    assert result.problems == ()


async def test_a_mismatch_is_reported_at_the_end_tag(tmp_path: Path, checkers: Checkers) -> None:
    html = "<!DOCTYPE html>\n<body>\n<div>\n<b>bold</div>\n</body>\n"

    result = await check(tmp_path, checkers, html)

    assert found(result)[0][:2] == (4, 8)


async def test_unclosed_elements_are_reported_at_their_start_tags(
    tmp_path: Path, checkers: Checkers
) -> None:
    html = "<!DOCTYPE html>\n<div>\n  <div class='inner'>\n  </div>\n<article>\n<p>text\n"

    result = await check(tmp_path, checkers, html)

    assert found(result) == [
        (2, 1, "<div> is never closed: </div> is missing"),
        (5, 1, "<article> is never closed: </article> is missing"),
    ]


async def test_an_unclosed_attribute_quote_is_a_problem(tmp_path: Path, checkers: Checkers) -> None:
    result = await check(tmp_path, checkers, '<!DOCTYPE html>\n<a href="x.html>link</a>\n')

    assert [p.message for p in result.problems] == [
        'Unexpected end of file in attribute value (").'
    ]


async def test_links_are_resolved_from_the_file_s_folder(
    tmp_path: Path, checkers: Checkers
) -> None:
    site = tmp_path / "site"
    (site / "docs").mkdir(parents=True)
    (site / "docs" / "guide.html").write_text("<!DOCTYPE html>\n")
    (site / "shared.css").write_text("")
    html = (
        "<!DOCTYPE html>\n"
        '<link rel="stylesheet" href="shared.css">\n'
        '<a href="docs/guide.html#part-2">guide</a> <a href="docs/">folder</a>\n'
        '<a href="docs/missing.html?x=1">gone</a>\n'
        '<img\n    alt="multi-line tag"\n    src="pics/cat.png">\n'
    )

    result = await check(site, checkers, html, root=tmp_path)

    assert found(result) == [
        (
            4,
            10,
            "'docs/missing.html?x=1' points to a file that does not exist (site/docs/missing.html)",
        ),
        (7, 10, "'pics/cat.png' points to a file that does not exist (site/pics/cat.png)"),
    ]


async def test_links_leaving_the_workspace_are_not_judged(
    tmp_path: Path, checkers: Checkers
) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()

    result = await check(
        workspace, checkers, '<!DOCTYPE html>\n<a href="../elsewhere/x.html">x</a>\n', workspace
    )

    assert result.problems == ()


async def test_a_base_element_turns_link_checks_off(tmp_path: Path, checkers: Checkers) -> None:
    html = '<!DOCTYPE html>\n<base href="https://cdn.example.org/">\n<img src="a.png">\n'

    result = await check(tmp_path, checkers, html)

    assert result.problems == ()


@needs_node
async def test_inline_script_errors_point_into_the_html_file(
    tmp_path: Path, checkers: Checkers
) -> None:
    html = (
        "<!DOCTYPE html>\n"
        "<script>let ok = 1;</script><script>let a = ;</script>\n"
        '<script type="module">\n'
        "  import { x } from './x.js';\n"
        "  x(;\n"
        "</script>\n"
    )

    result = await check(tmp_path, checkers, html)

    assert found(result) == [
        (2, 45, "SyntaxError: Unexpected token ';'"),
        (5, 5, "SyntaxError: Unexpected token ';'"),
    ]


async def test_json_scripts_are_checked_as_json(tmp_path: Path, checkers: Checkers) -> None:
    html = '<!DOCTYPE html>\n<script type="application/ld+json">\n{"@type": "Thing",}\n</script>\n'

    result = await check(tmp_path, checkers, html)

    assert found(result) == [
        (3, 19, "invalid JSON: Expecting property name enclosed in double quotes")
    ]


async def test_scripts_that_are_not_javascript_are_left_alone(
    tmp_path: Path, checkers: Checkers
) -> None:
    html = (
        "<!DOCTYPE html>\n"
        '<script type="text/template"><div>{{ name }</script>\n'
        '<script type="text/babel">const A = () => <b>x</b>;</script>\n'
        '<script src="https://cdn.example.org/lib.js">ignored content (</script>\n'
    )

    result = await check(tmp_path, checkers, html)

    assert result.problems == ()


async def test_without_node_inline_scripts_are_skipped_and_the_rest_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    checkers = Checkers()
    html = '<!DOCTYPE html>\n<script>let a = ;</script>\n<img src="gone.png">\n'

    result = await check(tmp_path, checkers, html)

    assert [p.line for p in result.problems] == [3]
    assert result.skipped == "node was not found: inline scripts were not checked"


async def test_a_declared_charset_is_used_and_an_undeclared_one_is_a_problem(
    tmp_path: Path, checkers: Checkers
) -> None:
    declared = '<!DOCTYPE html>\n<meta charset="iso-8859-1">\n<p>caf\xe9</p>\n'.encode("latin-1")
    undeclared = "<!DOCTYPE html>\n<p>caf\xe9</p>\n".encode("latin-1")

    assert (await check(tmp_path, checkers, declared)).problems == ()
    result = await check(tmp_path, checkers, undeclared)
    assert found(result)[0][:2] == (2, 7)
    assert "no <meta charset>" in result.problems[0].message
