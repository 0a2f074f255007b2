"""`ask --prompt SERVER/NAME` and `ask --resource URI`: what MCP servers offer, joined to the
message before the turn (the composer's "/" and "@" for the terminal)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from loki_desktop.core.i18n import _

if TYPE_CHECKING:
    from loki_desktop.core.image_attachment import ImageAttachment
    from loki_desktop.core.mcp.manager import McpManager


def add_mcp_arguments(parser: argparse.ArgumentParser) -> None:
    """--interactive, --allow-sampling, --mcp-wait, --resource: the servers' side of a turn."""
    parser.add_argument(
        "--interactive",
        action="store_true",
        help=_("répond dans le terminal aux formulaires des serveurs MCP (sinon refusés)"),
    )
    parser.add_argument(
        "--allow-sampling",
        action="store_true",
        help=_(
            "laisse les serveurs MCP demander une réponse à votre modèle (sauf ceux réglés "
            "sur « never » ; sinon toute demande est refusée)"
        ),
    )
    parser.add_argument(
        "--mcp-wait",
        type=float,
        metavar="S",
        help=_(
            "attend jusqu'à S secondes que les serveurs MCP activés démarrent (défaut : 10 ; "
            "un serveur plus lent est laissé de côté pour ce tour)"
        ),
    )
    parser.add_argument(
        "--resource",
        action="append",
        default=[],
        metavar="URI",
        help=_("joint une ressource d'un serveur MCP activé (voir « mcp resources » ; répétable)"),
    )


def is_server_prompt(name: str | None) -> bool:
    """`--prompt SERVER/NAME` names a server's prompt; a name alone is one of the person's."""
    return bool(name) and "/" in str(name)


def prompt_values(pairs: list[str]) -> dict[str, str]:
    """`--arg NAME=VALUE` words; raises ValueError with the sentence to print."""
    values: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(_("--arg « {pair} » : écrivez NOM=VALEUR.").format(pair=pair))
        values[key.strip()] = value
    return values


async def with_server_offers(
    mcp: McpManager, args: argparse.Namespace, words: str, images: list[ImageAttachment]
) -> tuple[str, list[ImageAttachment]]:
    """The words with the server's prompt before them and the resources after them, and the
    images they bring. Raises ValueError (one sentence) when one cannot be had."""
    server_prompt = args.prompt_name if is_server_prompt(args.prompt_name) else None
    if server_prompt is None and not args.resource:
        return words, images
    from loki_desktop.core.mcp.connection import McpOfferError

    await mcp.warm()  # the enabled servers, started and listed (bounded by --mcp-wait)
    images = list(images)
    try:
        if server_prompt is not None:
            text, more = await _prompt(mcp, server_prompt, prompt_values(args.arg))
            words = f"{text}\n\n{words}" if words.strip() else text
            images += more
        for uri in args.resource:
            content = await mcp.read_by_uri(uri)
            words = f"{words}\n\n{content.as_context()}" if words.strip() else content.as_context()
            images += content.images
    except McpOfferError as exc:
        raise ValueError(str(exc)) from None
    return words, images


async def _prompt(
    mcp: McpManager, command: str, values: dict[str, str]
) -> tuple[str, list[ImageAttachment]]:
    server_id, _sep, name = command.partition("/")
    prompt = next((p for p in mcp.prompts() if p.server_id == server_id and p.name == name), None)
    if prompt is None:
        raise ValueError(
            _(
                "Le serveur « {id} » ne propose pas de prompt « {name} » (ou n'est pas "
                "connecté) : voyez loki-desktop mcp prompts {id}."
            ).format(id=server_id, name=name)
        )
    rendered = await mcp.get_prompt(prompt, values)
    return rendered.text, list(rendered.images)
