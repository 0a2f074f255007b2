"""argparse's own words (usage:, options, help, its errors) in French and in English: every
command's help and the usage errors a person makes, read in each language."""

from __future__ import annotations

import argparse
import ast
import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest

from loki_desktop.cli import build_parser
from loki_desktop.cli.parser_words import FRENCH, PLURALS, plural_words, words
from loki_desktop.core.i18n import set_language
from tests.e2e.cli_runner import run_cli

# argparse's English phrases a French reader must never meet ("options" is French too)
ENGLISH = [phrase.strip() for phrase in FRENCH if phrase != "options"] + [
    "usage:",
    "error:",
    "show this help",
]
FRENCH_PHRASES = ["utilisation :", "arguments positionnels", "affiche cette aide et quitte"]


def argparse_messages() -> set[tuple[str, ...]]:
    """Every literal message the running Python's argparse passes to `_()` or `ngettext()`."""
    found: set[tuple[str, ...]] = set()
    for node in ast.walk(ast.parse(inspect.getsource(argparse))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        texts = tuple(a.value for a in node.args if isinstance(a, ast.Constant))
        if node.func.id in {"_", "ngettext"} and texts and all(isinstance(t, str) for t in texts):
            found.add(texts[:2] if node.func.id == "ngettext" else texts[:1])
    return found


def test_every_argparse_message_of_this_python_has_its_french() -> None:
    messages = argparse_messages()
    assert ("usage: ",) in messages  # the walk reads argparse's calls (a check that can fail)
    missing = [m for m in messages if (m not in PLURALS if len(m) == 2 else m[0] not in FRENCH)]
    assert not missing, f"argparse messages without their French in parser_words: {missing}"


def test_the_hook_is_what_argparse_speaks_through() -> None:
    build_parser([])  # sets the hook
    assert argparse._ is words  # type: ignore[attr-defined]  # the contract parser_words relies on
    assert argparse.ngettext is plural_words  # type: ignore[attr-defined]
    assert argparse.ArgumentParser(prog="x").format_usage() == "utilisation : x [-h]\n"


@pytest.mark.usefixtures("english")
def test_the_english_catalogue_gives_argparse_its_own_words_back() -> None:
    for english, french in FRENCH.items():
        assert words(english) == english, french
    for singular, plural in PLURALS:
        assert (plural_words(singular, plural, 1), plural_words(singular, plural, 2)) == (
            singular,
            plural,
        )


def every_parser(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:  # argparse: no public way to walk the subcommands
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                yield from every_parser(sub)


@pytest.mark.parametrize("language", ["fr", "en"])
def test_every_commands_help_speaks_one_language(language: str) -> None:
    set_language(language)
    helps = {p.prog: p.format_help() for p in every_parser(build_parser(None))}
    assert len(helps) > 20  # every command and sub-command, not just the top
    if language == "fr":
        wrong = {prog: [w for w in ENGLISH if w in text] for prog, text in helps.items()}
        assert all("utilisation :" in text for text in helps.values())
    else:
        wrong = {prog: [w for w in FRENCH_PHRASES if w in text] for prog, text in helps.items()}
        assert all(text.startswith("usage: ") for text in helps.values())
    assert not any(wrong.values()), {prog: found for prog, found in wrong.items() if found}


CASES = {
    "fr": [
        (("--help",), "utilisation : loki-desktop", "affiche cette aide et quitte"),
        (("ask", "--help"), "arguments positionnels", "affiche cette aide et quitte"),
        (
            ("models", "pull"),
            "loki-desktop models pull : erreur : ces arguments sont requis : NOM",
            "",
        ),
        (("asq",), "choix invalide : 'asq' (choisissez parmi", "loki-desktop : erreur"),
        (("check", "x.py", "--nope"), "arguments non reconnus : --nope", "utilisation :"),
        (("ask", "x", "--think"), "argument --think : un argument attendu", ""),
    ],
    "en": [
        (("--help",), "usage: loki-desktop", "show this help message and exit"),
        (("ask", "--help"), "positional arguments", "show this help message and exit"),
        (("models", "pull"), "models pull: error: the following arguments are required: NAME", ""),
        (("asq",), "invalid choice: 'asq' (choose from", "loki-desktop: error"),
        (("check", "x.py", "--nope"), "unrecognized arguments: --nope", "usage:"),
        (("ask", "x", "--think"), "argument --think: expected one argument", ""),
    ],
}


@pytest.mark.parametrize("language", ["fr", "en"])
def test_help_and_usage_errors_in_a_process(loki_home: Path, language: str) -> None:
    for args, first, second in CASES[language]:
        done = run_cli(*args, home=loki_home, LANGUAGE=language)
        said = done.stdout + done.stderr
        assert done.code == (0 if "--help" in args else 2), said
        assert first in said, said
        assert second in said, said
        other = FRENCH_PHRASES if language == "en" else ENGLISH
        assert not [w for w in other if w in said], said
