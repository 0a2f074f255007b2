"""argparse's own words (usage:, options, its error messages) through Loki's catalogue.

argparse writes its few sentences through `gettext` in English, looked up in the process-wide
domain with the language of the environment, not Loki's setting. Each of them is given here
the French source text that Loki's catalogue translates (French source, English from the .po),
so `loki-desktop --help` speaks the language the setting or the system chose, to the end.

argparse looks its `_` and `ngettext` up as module globals each time it speaks (a
documented gettext habit, not a public hook): `use_loki_words()` sets them, and
tests/e2e/test_cli_parser_words.py holds the contract — every message of the running Python's
argparse has its French here, and the hook still changes what argparse writes.
"""

from __future__ import annotations

import argparse

from loki_desktop.core.i18n import N_, _, ngettext

# argparse's English message -> the French source of Loki's catalogue (3.11 to 3.13)
FRENCH = {
    " (default: %(default)s)": N_(" (par défaut : %(default)s)"),
    "%(heading)s:": N_("%(heading)s :"),
    "%(prog)s: error: %(message)s\n": N_("%(prog)s : erreur : %(message)s\n"),
    "%(prog)s: warning: %(message)s\n": N_("%(prog)s : attention : %(message)s\n"),
    "%r is not callable": N_("%r ne peut pas être appelé"),
    "'required' is an invalid argument for positionals": N_(
        "« required » n'est pas permis pour un argument positionnel"
    ),
    ".__call__() not defined": N_(".__call__() n'est pas défini"),
    "ambiguous option: %(option)s could match %(matches)s": N_(
        "option ambiguë : %(option)s peut désigner %(matches)s"
    ),
    'argument "-" with mode %r': N_("argument « - » avec le mode %r"),
    "argument %(argument_name)s: %(message)s": N_("argument %(argument_name)s : %(message)s"),
    "argument '%(argument_name)s' is deprecated": N_(
        "l'argument « %(argument_name)s » est obsolète"
    ),
    "can't open '%(filename)s': %(error)s": N_("impossible d'ouvrir « %(filename)s » : %(error)s"),
    "cannot have multiple subparser arguments": N_(
        "un seul argument de sous-commandes est possible"
    ),
    "cannot merge actions - two groups are named %r": N_(
        "impossible de fusionner les actions : deux groupes s'appellent %r"
    ),
    "command '%(parser_name)s' is deprecated": N_("la commande « %(parser_name)s » est obsolète"),
    "conflicting subparser alias: %s": N_("alias de sous-commande en conflit : %s"),
    "conflicting subparser: %s": N_("sous-commande en conflit : %s"),
    "dest= is required for options like %r": N_("dest= est requis pour une option comme %r"),
    "expected at least one argument": N_("au moins un argument attendu"),
    "expected at most one argument": N_("au plus un argument attendu"),
    "expected one argument": N_("un argument attendu"),
    "ignored explicit argument %r": N_("argument explicite ignoré : %r"),
    "invalid %(type)s value: %(value)r": N_("valeur %(type)s invalide : %(value)r"),
    "invalid choice: %(value)r (choose from %(choices)s)": N_(
        "choix invalide : %(value)r (choisissez parmi %(choices)s)"
    ),
    "invalid conflict_resolution value: %r": N_("valeur de conflict_resolution invalide : %r"),
    "invalid option string %(option)r: must start with a character %(prefix_chars)r": N_(
        "option %(option)r invalide : elle doit commencer par un caractère %(prefix_chars)r"
    ),
    "mutually exclusive arguments must be optional": N_(
        "des arguments mutuellement exclusifs doivent être facultatifs"
    ),
    "not allowed with argument %s": N_("interdit avec l'argument %s"),
    "one of the arguments %s is required": N_("l'un des arguments %s est requis"),
    "option '%(option)s' is deprecated": N_("l'option « %(option)s » est obsolète"),
    "options": N_("options"),
    "positional arguments": N_("arguments positionnels"),
    "show program's version number and exit": N_("affiche la version du programme et quitte"),
    "show this help message and exit": N_("affiche cette aide et quitte"),
    "subcommands": N_("sous-commandes"),
    "the following arguments are required: %s": N_("ces arguments sont requis : %s"),
    "unexpected option string: %s": N_("option inattendue : %s"),
    "unknown parser %(parser_name)r (choices: %(choices)s)": N_(
        "sous-commande %(parser_name)r inconnue (choix : %(choices)s)"
    ),
    "unrecognized arguments: %s": N_("arguments non reconnus : %s"),
    "usage: ": N_("utilisation : "),
}
# argparse's plural messages (singular, plural)
PLURALS = (
    ("conflicting option string: %s", "conflicting option strings: %s"),
    ("expected %s argument", "expected %s arguments"),
)


def words(message: str) -> str:
    """argparse's `message` in the language in use (its English when it is not known here)."""
    french = FRENCH.get(message)
    return message if french is None else _(french)


def plural_words(singular: str, plural: str, count: int) -> str:
    """argparse's plural message for `count` in the language in use."""
    if singular == PLURALS[0][0]:
        return ngettext("option en conflit : %s", "options en conflit : %s", count)
    if singular == PLURALS[1][0]:
        return ngettext("%s argument attendu", "%s arguments attendus", count)
    return singular if count == 1 else plural


def use_loki_words() -> None:
    """From now on, argparse speaks through Loki's catalogue."""
    argparse._ = words  # type: ignore[attr-defined]  # its gettext alias, read at each call
    argparse.ngettext = plural_words  # type: ignore[attr-defined]
