"""TypeScript/TSX/JSX, CSS, YAML and shell checks on real files: positions, the cases the
corpus does not show, and that nothing is ever run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from loki_desktop.core.checks.registry import Checkers
from loki_desktop.core.checks.shell_check import ShellTools, check_shell, shell_of
from loki_desktop.core.checks.source import Source


async def check(tmp_path: Path, checkers: Checkers, name: str, text: str | bytes):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return await checkers.check(path, tmp_path)


def located(result) -> list[tuple[int, int]]:
    return [(p.line, p.col) for p in result.problems]


# --- TypeScript, TSX, JSX -----------------------------------------------------------------


async def test_columns_count_characters_not_bytes(tmp_path: Path, checkers: Checkers) -> None:
    result = await check(tmp_path, checkers, "a.ts", 'const é: string = "€€";\nf(1, 2;\n')

    assert located(result) == [(2, 7)]
    assert result.problems[0].message == "erreur de syntaxe : « ) » manquant"


async def test_newer_typescript_is_rewritten_with_positions_kept(
    tmp_path: Path, checkers: Checkers
) -> None:
    source = "interface P<in out T> { x: T }\nexport type * from './m';\nf(1, 2;\n"

    result = await check(tmp_path, checkers, "a.ts", source)

    assert located(result) == [(3, 7)]


async def test_the_grammar_follows_the_extension(tmp_path: Path, checkers: Checkers) -> None:
    """`<T>x` is a cast in .ts and a tag in .tsx; annotations are not JavaScript."""
    cast = "const n = <number>value;\n"

    assert (await check(tmp_path, checkers, "cast.ts", cast)).ok
    assert not (await check(tmp_path, checkers, "cast.tsx", cast)).ok
    assert not (await check(tmp_path, checkers, "typed.jsx", "let x: number = 1;\n")).ok
    assert (await check(tmp_path, checkers, "types.d.ts", "declare const x: number;\n")).ok


async def test_a_jsx_closing_tag_must_match(tmp_path: Path, checkers: Checkers) -> None:
    source = "export const A = () => (\n  <Card.Body>\n    <p>hi</p>\n  </Card.Header>\n);\n"

    result = await check(tmp_path, checkers, "a.jsx", source)

    assert located(result) == [(4, 3)]
    assert result.problems[0].message == "</Card.Header> ferme <Card.Body> : il faut </Card.Body>"


async def test_non_utf8_typescript_is_a_problem(tmp_path: Path, checkers: Checkers) -> None:
    result = await check(tmp_path, checkers, "a.ts", b"let s = '\xe9';\n")

    assert located(result) == [(1, 10)]


# --- CSS ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (".a { .b { color: red; }\n", [(2, 1)]),  # nested rule fine, outer block unclosed
        (".a { background: url(x.png; }\n", [(1, 18)]),  # esbuild: 1:28
        (".a {\n  color: red\n}\n.b { margin 0 }\n", [(4, 14)]),  # esbuild: 4:11
        ("@media print {\n  .a { display: none }\n", [(3, 1)]),
    ],
)
async def test_css_problems(
    tmp_path: Path, checkers: Checkers, source: str, expected: list[tuple[int, int]]
) -> None:
    result = await check(tmp_path, checkers, "s.css", source)

    assert located(result) == expected, result.problems


async def test_an_unclosed_block_says_where_it_opened(tmp_path: Path, checkers: Checkers) -> None:
    result = await check(tmp_path, checkers, "s.css", "a { color: red; }\n\nnav {\n  b { x: y }\n")

    assert [p.message for p in result.problems] == [
        "« { » ouvert ligne 3 jamais fermé : « } » manquant"
    ]


async def test_unknown_at_rules_and_underscore_hacks_are_not_syntax_errors(
    tmp_path: Path, checkers: Checkers
) -> None:
    source = (
        '@tailwind base;\n@charset "utf-8";\n.a { @apply px-4 py-2; _height: 1px; }\n'
        "@import url(x.css) layer(base) supports(display: grid);\n"
        "@font-feature-values Font { @swash { fancy: 1; } }\n"
    )

    assert (await check(tmp_path, checkers, "s.css", source)).problems == ()


# --- YAML -----------------------------------------------------------------------------------


async def test_a_duplicate_in_a_later_document_is_found(tmp_path: Path, checkers: Checkers) -> None:
    result = await check(tmp_path, checkers, "a.yaml", "a: 1\n---\nb: 1\nc: 2\nb: 3\n")

    assert located(result) == [(5, 1)]
    assert result.problems[0].message == "clé « b » en double (déjà ligne 3)"


async def test_merge_keys_anchors_and_tags_are_valid(tmp_path: Path, checkers: Checkers) -> None:
    source = (
        "base: &b {x: 1}\nother: &o {y: 2}\nc:\n  <<: *b\n  <<: *o\n"
        "d: !!python/object:os.system echo\ne: !Ref X\n"
    )

    assert (await check(tmp_path, checkers, "a.yaml", source)).problems == ()


async def test_a_helm_template_is_not_judged_as_yaml(tmp_path: Path, checkers: Checkers) -> None:
    source = "{{- if .Values.enabled }}\nimage: {{ .Values.image }}\n{{- end }}\n"

    result = await check(tmp_path, checkers, "templates/deploy.yaml", source)

    assert result.problems == ()
    assert result.skipped is not None
    assert "Helm" in result.skipped


async def test_quoted_templates_are_plain_yaml(tmp_path: Path, checkers: Checkers) -> None:
    source = 'name: "{{ item }}"\nname: x\n'

    assert located(await check(tmp_path, checkers, "play.yml", source)) == [(2, 1)]


# --- shell ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "suffix", "shell"),
    [
        ("#!/bin/sh\n", ".sh", "sh"),
        ("#!/usr/bin/env bash\n", ".sh", "bash"),
        ("#! /usr/bin/env -S bash -e\n", "", "bash"),
        ("#!/bin/dash -e\n", ".sh", "dash"),
        ("echo hi\n", ".sh", "bash"),
        ("echo hi\n", ".zsh", "zsh"),
        ("#!/usr/bin/env python3\n", ".sh", None),
    ],
)
def test_the_shell_is_the_one_the_shebang_names(text: str, suffix: str, shell: str | None) -> None:
    assert shell_of(text, suffix) == shell


async def test_nothing_in_a_script_runs_not_even_bash_env(
    tmp_path: Path, checkers: Checkers
) -> None:
    """bash reads $BASH_ENV at start even with -n: the check removes it."""
    mark = tmp_path / "MARK"
    startup = tmp_path / "startup.sh"
    startup.write_text(f"touch {mark}-startup\n")
    script = f"#!/bin/bash\ntouch {mark}\necho $(touch {mark}-sub)\nif true; then\n"
    old = os.environ.get("BASH_ENV")
    os.environ["BASH_ENV"] = str(startup)
    try:
        result = await check(tmp_path, checkers, "run.sh", script)
    finally:
        if old is None:
            del os.environ["BASH_ENV"]
        else:
            os.environ["BASH_ENV"] = old

    assert result.problems
    assert not list(tmp_path.glob("MARK*"))


async def test_a_shell_that_is_not_installed_is_said(tmp_path: Path) -> None:
    path = tmp_path / "a.sh"
    path.write_text("#!/bin/bash\necho hi\n")

    result = await check_shell(Source(path, path.read_bytes()), ShellTools({}, None))

    assert result.problems == ()
    assert result.skipped == (
        "bash introuvable : la grammaire n'a pas été vérifiée; "
        "shellcheck introuvable : seule la grammaire a été vérifiée"
    )


async def test_a_script_of_another_language_is_not_judged(
    tmp_path: Path, checkers: Checkers
) -> None:
    result = await check(tmp_path, checkers, "tool.sh", "#!/usr/bin/env python3\nprint('hi')\n")

    assert result.problems == ()
    assert result.skipped == "script d'un shell inconnu : non vérifié"
