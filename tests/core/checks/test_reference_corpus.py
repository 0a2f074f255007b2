"""The corpus written for issue 22: valid and broken files of every new kind and of modern
Python. The checkers raise no false alarm on the valid ones and catch every broken one
within 2 lines of where each reference parser reports it; the references are run here too
when they are installed (see tests/core/checks/references.py)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from loki_desktop.core.checks.registry import Checkers
from tests.core.checks import references
from tests.core.checks.references import REFERENCE_CORPUS, corpus_files

EXPECTED: dict[str, dict[str, int]] = tomllib.loads(
    (REFERENCE_CORPUS / "expected.toml").read_text(encoding="utf-8")
)["broken"]
VALID = [p.relative_to(REFERENCE_CORPUS / "valid").as_posix() for p in corpus_files("valid")]
BROKEN = [p.relative_to(REFERENCE_CORPUS / "broken").as_posix() for p in corpus_files("broken")]
TOLERANCE = 2  # lines
# Broken files whose mistake the checker shows on its own line, well before where the
# references notice it (a JSX attribute string never closed runs to the end of the file,
# where esbuild and TypeScript report it): the line shown, checked instead.
EARLIER = {"attribute_quote.tsx": 5}


def test_every_broken_file_has_its_reference_positions() -> None:
    assert sorted(EXPECTED) == sorted(BROKEN)


def test_the_corpus_covers_every_new_kind_and_modern_python() -> None:
    suffixes = {Path(name).suffix for name in VALID} & {Path(name).suffix for name in BROKEN}
    assert suffixes >= {".ts", ".tsx", ".jsx", ".css", ".yaml", ".sh", ".py"}


@pytest.mark.parametrize("name", VALID)
async def test_a_valid_file_raises_no_alarm(name: str, corpus: Path, checkers: Checkers) -> None:
    result = await checkers.check(corpus / "reference" / "valid" / name, corpus)

    assert result.problems == ()
    assert result.skipped is None


@pytest.mark.parametrize("name", BROKEN)
async def test_a_broken_file_is_caught_near_every_reference_position(
    name: str, corpus: Path, checkers: Checkers
) -> None:
    result = await checkers.check(corpus / "reference" / "broken" / name, corpus)

    assert result.problems, "a broken file came back clean"
    assert result.skipped is None
    lines = [problem.line for problem in result.problems]
    if name in EARLIER:
        assert EARLIER[name] in lines
        assert all(line > EARLIER[name] + TOLERANCE for line in EXPECTED[name].values())
        return
    for tool, line in EXPECTED[name].items():
        assert any(abs(found - line) <= TOLERANCE for found in lines), (tool, line, lines)


def _check_references(paths: list[Path], folder: str) -> None:
    for path, verdicts in references.verdicts(paths).items():
        name = path.relative_to(REFERENCE_CORPUS / folder).as_posix()
        if folder == "valid":
            assert all(line is None for line in verdicts.values()), (name, verdicts)
            continue
        assert any(line is not None for line in verdicts.values()), (name, "passes")
        expected = EXPECTED[name]
        for tool, line in verdicts.items():
            if tool in expected or line is not None:
                assert expected.get(tool) == line, (name, tool, line)


@pytest.mark.slow
@pytest.mark.parametrize("folder", ["valid", "broken"])
def test_the_references_agree_with_the_corpus(folder: str) -> None:
    """Valid files pass every reference; broken ones fail where expected.toml says."""
    paths = [p for p in corpus_files(folder) if p.suffix not in references.NODE_SUFFIXES]
    _check_references(paths, folder)


@pytest.mark.slow
@pytest.mark.skipif(
    not references.node_available(), reason="esbuild/typescript not installed: make reference"
)
@pytest.mark.parametrize("folder", ["valid", "broken"])
def test_esbuild_and_typescript_agree_with_the_corpus(folder: str) -> None:
    paths = [p for p in corpus_files(folder) if p.suffix in references.NODE_SUFFIXES]
    _check_references(paths, folder)
