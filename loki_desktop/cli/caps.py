"""The `--max-tokens N` and `--timeout S` flags of `ask` and `eval`: an answer's caps."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from loki_desktop.core.i18n import _
from loki_desktop.core.llm.caps import AnswerCaps


def _not_negative(kind: type[int] | type[float]) -> Callable[[str], int | float]:
    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            message = _("« {text} » n'est pas un nombre").format(text=text)
            raise argparse.ArgumentTypeError(message) from None
        if value < 0:
            raise argparse.ArgumentTypeError(_("{value} est négatif").format(value=text))
        return value

    return parse


def add_cap_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-tokens",
        type=_not_negative(int),
        default=0,
        metavar="N",
        help=_(
            "longueur maximale d'une réponse, en jetons (envoyée au serveur et tenue par "
            "Loki ; défaut : les réglages, 8192)"
        ),
    )
    parser.add_argument(
        "--timeout",
        type=_not_negative(float),
        default=0.0,
        metavar="S",
        help=_(
            "durée maximale d'une réponse, en secondes de génération sur tout le tour "
            "(défaut : les réglages, 1800)"
        ),
    )


def caps_from_args(args: argparse.Namespace) -> AnswerCaps:
    """The flags' caps (0: the settings' for that cap)."""
    return AnswerCaps(int(args.max_tokens), float(args.timeout))
