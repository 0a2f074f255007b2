"""The command line parser builds only the command it is given (a one-shot `ask` pays for
one module's arguments), and still knows every command for help and mistakes."""

from __future__ import annotations

import pytest

from loki_desktop.cli import COMMANDS, build_parser


def commands_of(argv: list[str]) -> set[str]:
    parser = build_parser(argv)
    (subparsers,) = [a for a in parser._actions if a.dest == "command"]  # argparse: no public way
    return set(subparsers.choices or {})


def test_a_named_command_registers_only_itself() -> None:
    assert commands_of(["ask", "Bonjour", "--json"]) == {"ask"}
    assert commands_of(["--install-desktop-entry"]) == set()
    args = build_parser(["ask", "Bonjour", "--json"]).parse_args(["ask", "Bonjour", "--json"])
    assert (args.command, args.prompt, args.json) == ("ask", "Bonjour", True)


@pytest.mark.parametrize("argv", [["--help"], ["-h", "ask"], ["asq", "x"]])
def test_help_and_unknown_words_see_every_command(argv: list[str]) -> None:
    assert commands_of(argv) == set(COMMANDS)


def test_every_command_is_keyed_by_the_name_it_registers() -> None:
    for name in COMMANDS:
        assert commands_of([name]) == {name}
