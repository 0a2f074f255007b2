"""What `ask` sends: the words (or a prompt of the library, filled), the attached files."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from loki_desktop.core.i18n import _

if TYPE_CHECKING:
    from loki_desktop.core.agent import Agent
    from loki_desktop.core.attachments.model import FileAttachment


def add_message_arguments(parser: argparse.ArgumentParser) -> None:
    """--attach, --first-part, --prompt, --arg, --system, --stats, --no-agents-md."""
    parser.add_argument(
        "--attach",
        action="append",
        type=Path,
        default=[],
        metavar=_("FICHIER"),
        help=_(
            "joint un fichier texte, de code ou PDF (son texte va au modèle avec son nom ; "
            "répétable)"
        ),
    )
    parser.add_argument(
        "--first-part",
        action="store_true",
        help=_("quand les fichiers joints dépassent le contexte, n'envoie que leur début"),
    )
    parser.add_argument(
        "--prompt",
        dest="prompt_name",
        metavar=_("NOM"),
        help=_(
            "part d'un de vos prompts (dossier « prompts » des données), ou de celui d'un "
            "serveur MCP avec SERVEUR/NOM ; le message, s'il est donné, suit son texte"
        ),
    )
    parser.add_argument(
        "--arg",
        action="append",
        default=[],
        metavar=_("NOM=VALEUR"),
        help=_("la valeur de la variable NOM du prompt (répétable)"),
    )
    parser.add_argument(
        "--system",
        metavar=_("TEXTE"),
        help=_("instructions pour ce tour, à la place de vos Instructions personnelles"),
    )
    parser.add_argument(
        "--stats",
        action="store_true",
        help=_(
            "affiche les chiffres de la réponse (jetons, jetons/s, premier jeton, contexte) "
            "sur une ligne grisée de stderr"
        ),
    )
    parser.add_argument(
        "--no-agents-md",
        action="store_true",
        help=_("ne lit pas le fichier AGENTS.md du dossier de travail"),
    )


def message_words(args: argparse.Namespace, data_home: Path) -> str:
    """The words to send: the message, or the prompt's filled text followed by it.
    Raises ValueError with the sentence to print."""
    from loki_desktop.cli.ask_mcp import is_server_prompt, prompt_values

    message = args.prompt or ""
    if is_server_prompt(args.prompt_name):
        prompt_values(args.arg)  # checked now; the server renders it once it is connected
        return message  # the prompt's text comes before it (cli.ask_mcp)
    if args.prompt_name is None:
        if args.arg:
            raise ValueError(_("--arg ne sert qu'avec --prompt."))
        if not message.strip():
            raise ValueError(_("Le message est vide : donnez-le, ou --prompt NOM."))
        return message
    from loki_desktop.core.prompt_library import find_prompt, prompts_folder

    values = prompt_values(args.arg)
    prompt = find_prompt(prompts_folder(data_home), args.prompt_name)  # PromptError
    text = prompt.fill(values).strip()
    return f"{text}\n\n{message}" if message.strip() else text


def load_files(paths: list[Path]) -> tuple[FileAttachment, ...]:
    """The attached files, read; raises ValueError (an AttachmentRefused) for the first that
    cannot be."""
    if not paths:
        return ()
    from loki_desktop.core.attachments.loading import load_attachment

    return tuple(load_attachment(path.expanduser()) for path in paths)


@dataclass(frozen=True, slots=True)
class FittedFiles:
    """The files as they will be sent, and what to say about it (empty: nothing)."""

    files: tuple[FileAttachment, ...]
    notice: str = ""
    refusal: str = ""


async def fit_files_to_context(
    agent: Agent, words: str, files: tuple[FileAttachment, ...], *, first_part: bool
) -> FittedFiles:
    """The files if they fit in the context left; otherwise a refusal that offers
    --first-part, or (with it) their first part and a notice."""
    if not files:
        return FittedFiles(files)
    from loki_desktop.core.attachments.loading import fit_files
    from loki_desktop.core.ports import BackendError
    from loki_desktop.core.room import room_for_files

    try:
        room = await room_for_files(agent, words)
    except BackendError:
        return FittedFiles(files)  # unreachable, no model: the turn says so in its words
    kept, overflow = fit_files(files, room)
    if overflow is None:
        return FittedFiles(files)
    if not first_part:
        offer = _("Relancez avec --first-part pour n'envoyer que leur début.")
        return FittedFiles((), refusal=f"{overflow.message()} {offer}")
    sent = _("Seul leur début est envoyé.")
    return FittedFiles(kept, notice=f"{overflow.message()} {sent}")
