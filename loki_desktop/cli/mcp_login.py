"""`loki-desktop mcp login ID` / `mcp logout ID`: OAuth sign-in to a remote MCP server.

The login prints the authorization URL, opens the system browser on it (Python's
`webbrowser`, which honours $BROWSER) and waits for the browser to come back to Loki's
loopback listener; the tokens go to the keyring. Options set a pre-registered client, a
machine account (client credentials) or an enterprise sign-in (SEP-990: the page that opens is
the identity provider's) first.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import webbrowser
from typing import TYPE_CHECKING

from loki_desktop.core.i18n import _

if TYPE_CHECKING:
    from loki_desktop.core.mcp.service import McpService


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    login = commands.add_parser(
        "login", help=_("se connecter (OAuth) à un serveur HTTP distant, dans le navigateur")
    )
    login.add_argument("id", help=_("identifiant du serveur"))
    login.add_argument("--client-id", help=_("client enregistré d'avance auprès du serveur"))
    login.add_argument(
        "--client-secret",
        action="store_true",
        help=_("demande le secret du client (ou sa clé privée PEM) : rangé dans le trousseau"),
    )
    login.add_argument("--scope", help=_("droits demandés en plus, séparés par des espaces"))
    login.add_argument(
        "--client-credentials",
        action="store_true",
        help=_("compte machine : identifiant + secret du client, sans navigateur"),
    )
    login.add_argument(
        "--enterprise",
        action="store_true",
        help=_(
            "connexion d'entreprise (SEP-990) : vous vous connectez à votre fournisseur "
            "d'identité, qui ouvre le serveur ; avec --idp-issuer, --idp-client-id, "
            "--client-id, --client-secret"
        ),
    )
    login.add_argument("--idp-issuer", help=_("adresse (issuer) du fournisseur d'identité"))
    login.add_argument("--idp-client-id", help=_("identifiant de Loki auprès du fournisseur"))
    login.add_argument(
        "--idp-client-secret",
        action="store_true",
        help=_("demande le secret de Loki auprès du fournisseur, s'il en veut un (trousseau)"),
    )
    login.add_argument(
        "--issuer",
        help=_(
            "serveur d'autorisation du serveur MCP (par défaut : celui qu'il annonce, "
            "affiché puis gardé dans les réglages)"
        ),
    )
    login.add_argument(
        "--no-browser", action="store_true", help=_("affiche l'adresse sans ouvrir le navigateur")
    )
    logout = commands.add_parser("logout", help=_("oublie la connexion OAuth d'un serveur"))
    logout.add_argument("id", help=_("identifiant du serveur"))


def login(args: argparse.Namespace, service: McpService) -> int:
    _configure(args, service)

    async def browser(url: str) -> None:
        print(_("Ouvrez cette adresse pour vous connecter : {url}").format(url=url), flush=True)
        if not args.no_browser:
            await asyncio.to_thread(webbrowser.open, url)
        print(_("En attente du retour du navigateur…"), flush=True)

    async def sign_in() -> tuple[bool, str, tuple[str, ...]]:
        try:
            result = await service.sign_in(args.id, browser)
        finally:
            await service.aclose()
        return result.ok, result.message, result.tools

    ok, message, tools = asyncio.run(sign_in())
    if not ok:
        from loki_desktop.core.mcp.secret_values import mask

        print(f"✗ {args.id} : {mask(message)}", file=sys.stderr)
        return 1
    print(
        _("✓ Connecté à {id} ; jetons rangés dans le trousseau système. Outils : {tools}.").format(
            id=args.id, tools=", ".join(tools) or "—"
        )
    )
    return 0


def logout(args: argparse.Namespace, service: McpService) -> int:
    async def sign_out() -> None:
        try:
            await service.sign_out(args.id)
        finally:
            await service.aclose()

    asyncio.run(sign_out())
    print(_("{id} : connexion oubliée, jetons effacés du trousseau.").format(id=args.id))
    return 0


def _configure(args: argparse.Namespace, service: McpService) -> None:
    """Options given: save them (settings + keyring) before signing in."""
    enterprise = (
        args.enterprise
        or args.idp_issuer
        or args.idp_client_id
        or args.issuer
        or args.idp_client_secret
    )
    if not (
        args.client_id or args.client_secret or args.scope or args.client_credentials or enterprise
    ):
        return
    from dataclasses import replace

    from loki_desktop.cli.secret_input import ask_value
    from loki_desktop.core.mcp.config import OAuthConfig

    server = service.server(args.id).config
    current = server.oauth or OAuthConfig()
    grant = current.grant
    if args.client_credentials:
        grant = "client_credentials"
    elif enterprise:
        grant = "enterprise"
    oauth = replace(
        current,
        client_id=args.client_id or current.client_id,
        scope=args.scope if args.scope is not None else current.scope,
        grant=grant,
        idp_issuer=args.idp_issuer or current.idp_issuer,
        idp_client_id=args.idp_client_id or current.idp_client_id,
        issuer=args.issuer or current.issuer,
    )
    if oauth.grant == "enterprise" and not oauth.issuer and server.url:
        oauth = replace(oauth, issuer=_announced_issuer(server.url))
    OAuthConfig.parse(oauth.to_json())  # the checks of the settings file, said before saving
    secret = ask_value("client_secret") if args.client_secret else None
    idp_secret = ask_value("idp_client_secret") if args.idp_client_secret else None
    if secret is None and idp_secret is None and current == oauth:
        return
    service.set_oauth(args.id, oauth, client_secret=secret, idp_secret=idp_secret)


def _announced_issuer(url: str) -> str:
    """The authorization server the MCP server names, shown to the person, then kept: it is
    never asked again at connection time (SEP-990)."""
    import httpx

    from loki_desktop.core.mcp.config import McpConfigError
    from loki_desktop.core.mcp.enterprise import authorization_server_of
    from loki_desktop.core.mcp.oauth import SignInFailed

    try:
        issuer = asyncio.run(authorization_server_of(url))
    except (SignInFailed, httpx.HTTPError, ValueError) as exc:
        raise McpConfigError(
            _("Serveur d'autorisation introuvable ({error}) : donnez-le avec --issuer.").format(
                error=str(exc) or type(exc).__name__
            )
        ) from None
    print(
        _(
            "Serveur d'autorisation annoncé par le serveur : {issuer} (gardé dans les réglages ; "
            "--issuer pour en choisir un autre)"
        ).format(issuer=issuer),
        flush=True,
    )
    return issuer
