"""`loki-desktop mcp`: list, turn on and off, set up, add, import and test MCP servers."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from loki_desktop.cli import mcp_login
from loki_desktop.cli.secret_input import ask_value
from loki_desktop.core.i18n import _, ngettext
from loki_desktop.core.services import Services

if TYPE_CHECKING:
    from loki_desktop.core.mcp.service import McpService, ServerView


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("mcp", help=_("serveurs MCP : outils professionnels de l'agent"))
    commands = parser.add_subparsers(dest="mcp_command", metavar="ACTION", required=True)

    listing = commands.add_parser("list", help=_("liste les serveurs (catalogue et personnels)"))
    listing.add_argument(
        "--json", action="store_true", help=_("un objet JSON par serveur, en liste")
    )

    for name, text in (("enable", _("active un serveur")), ("disable", _("désactive un serveur"))):
        sub = commands.add_parser(name, help=text)
        sub.add_argument("id", help=_("identifiant du serveur"))

    setter = commands.add_parser(
        "set",
        help=_(
            "règle des paramètres (NOM=valeur ; NOM seul demande la valeur sans l'afficher ; "
            "NOM= l'efface)"
        ),
    )
    setter.add_argument("id", help=_("identifiant du serveur"))
    setter.add_argument("assignments", nargs="+", metavar=_("NOM=VALEUR"))

    adder = commands.add_parser("add", help=_("ajoute un serveur personnel"))
    adder.add_argument("name", help=_("identifiant (a-z, 0-9, tiret)"))
    target = adder.add_mutually_exclusive_group(required=True)
    target.add_argument(
        "--command",
        dest="server_command",  # not "command": the top-level parser's dest for the sub-command
        help=_('ligne de commande stdio, ex. "npx -y mon-serveur"'),
    )
    target.add_argument("--url", help=_("adresse d'un serveur HTTP (streamable HTTP)"))
    adder.add_argument(
        "--header", action="append", default=[], metavar=_('"NOM: valeur"'), help=_("en-tête HTTP")
    )
    adder.add_argument(
        "--env",
        action="append",
        default=[],
        metavar=_("NOM=VALEUR"),
        help=_("variable d'environnement"),
    )
    adder.add_argument("--label", help=_("nom affiché"))
    adder.add_argument("--enable", action="store_true", help=_("l'active tout de suite"))

    remover = commands.add_parser("remove", help=_("supprime un serveur personnel"))
    remover.add_argument("id", help=_("identifiant du serveur"))

    tester = commands.add_parser("test", help=_("se connecte une fois et liste les outils"))
    tester.add_argument("id", help=_("identifiant du serveur"))
    tester.add_argument("--json", action="store_true", help=_("le résultat en JSON"))

    sampler = commands.add_parser(
        "sampling",
        help=_(
            "ce serveur peut-il demander une réponse à votre modèle : always (toujours), ask "
            "(demander, défaut), never (jamais)"
        ),
    )
    sampler.add_argument("id", help="identifiant du serveur")
    sampler.add_argument("policy", choices=["always", "ask", "never"])

    importer = commands.add_parser(
        "import", help=_('importe un fichier {"mcpServers": ...} (Claude Desktop)')
    )
    importer.add_argument("file", type=Path, help=_("fichier JSON"))

    mcp_login.register(commands)

    parser.set_defaults(run=run)


def run(args: argparse.Namespace, services: Services) -> int:
    from loki_desktop.core.mcp.config import McpConfigError
    from loki_desktop.core.mcp.secret_values import mask
    from loki_desktop.core.mcp.service import McpService
    from loki_desktop.core.ports import SecretStoreUnavailable

    service = McpService(services.settings, services.secrets, data_home=services.data_home)
    for notice in services.settings.take_notices() + service.notices:
        print(_("note : {text}").format(text=mask(notice)), file=sys.stderr)
    action = {
        "list": _list,
        "enable": _enable,
        "disable": _disable,
        "set": _set,
        "add": _add,
        "remove": _remove,
        "test": _test,
        "import": _import,
        "sampling": _sampling,
        "login": mcp_login.login,
        "logout": mcp_login.logout,
    }[args.mcp_command]
    try:
        return action(args, service)
    except (McpConfigError, SecretStoreUnavailable) as exc:
        print(mask(str(exc)), file=sys.stderr)  # a sentence may quote what was typed
        return 1


# --- actions ------------------------------------------------------------------------------


def _list(args: argparse.Namespace, service: McpService) -> int:
    views = service.servers()
    if args.json:
        print(json.dumps([_view_json(view, service) for view in views], ensure_ascii=False))
        return 0
    for view in views:
        state = _("activé") if view.config.enabled else _("désactivé")
        print(f"{view.id:<14} {state:<10} {view.label} — {_where(view)}")
        if view.config.measured is not None:
            tools, tokens = view.config.measured
            cost = ngettext(
                "coût : {tools} outil, ~{tokens} jetons par requête (mesuré au dernier test)",
                "coût : {tools} outils, ~{tokens} jetons par requête (mesuré au dernier test)",
                tools,
            )
            print(f"{'':<14} " + cost.format(tools=tools, tokens=tokens))
        for name, value in sorted(view.config.params.items()):
            print(f"{'':<14} {name}={value}")
        for name in view.secrets_set:
            print(f"{'':<14} {name}=•••• " + _("(trousseau)"))
        if view.config.enabled and (problem := service.problem(view.id)):
            print(f"{'':<14} ⚠ {problem}")
    return 0


def _sampling(args: argparse.Namespace, service: McpService) -> int:
    from loki_desktop.core.i18n import _

    service.set_sampling(args.id, args.policy)
    print(
        _("{id} : demandes de réponse au modèle → {policy}.").format(id=args.id, policy=args.policy)
    )
    return 0


def _enable(args: argparse.Namespace, service: McpService) -> int:
    service.enable(args.id)
    print(_("{id} activé : il démarrera au prochain message.").format(id=args.id))
    if problem := service.problem(args.id):
        print(f"⚠ {problem}", file=sys.stderr)
    return 0


def _disable(args: argparse.Namespace, service: McpService) -> int:
    service.disable(args.id)
    print(_("{id} désactivé.").format(id=args.id))
    return 0


def _set(args: argparse.Namespace, service: McpService) -> int:
    from loki_desktop.core.mcp.config import is_secret_param

    values: dict[str, str | None] = {}
    for assignment in args.assignments:
        name, sep, value = assignment.partition("=")
        values[name.strip()] = value if sep else ask_value(name.strip())
    service.set_params(args.id, values)
    for name, value in values.items():
        if not value:
            print(_("{id} : {name} effacé.").format(id=args.id, name=name))
        elif is_secret_param(name, value):
            print(
                _("{id} : {name} enregistré dans le trousseau système.").format(
                    id=args.id, name=name
                )
            )
        else:
            print(f"{args.id} : {name}={value}")
    return 0


def _add(args: argparse.Namespace, service: McpService) -> int:
    from loki_desktop.core.mcp.config import McpConfigError

    if args.server_command is not None:
        if args.header:
            raise McpConfigError(_("--header ne s'emploie qu'avec --url."))
        config = service.add_stdio(
            args.name,
            _split_command(args.server_command),
            env=_pairs(args.env, "="),
            label=args.label,
            enabled=args.enable,
        )
    else:
        if args.env:
            raise McpConfigError(_("--env ne s'emploie qu'avec --command."))
        config = service.add_http(
            args.name,
            args.url,
            headers=_pairs(args.header, ":"),
            label=args.label,
            enabled=args.enable,
        )
    if config.enabled:
        print(_("{id} ajouté, activé.").format(id=config.id))
    else:
        print(_("{id} ajouté, désactivé (loki-desktop mcp enable {id}).").format(id=config.id))
    for name in config.secrets:  # also those taken out of the command line or URL
        print(_("{id} : {name} rangé dans le trousseau système.").format(id=config.id, name=name))
    return 0


def _remove(args: argparse.Namespace, service: McpService) -> int:
    service.remove(args.id)
    print(_("{id} supprimé.").format(id=args.id))
    return 0


def _test(args: argparse.Namespace, service: McpService) -> int:
    async def test() -> Any:
        try:
            return await service.test(args.id)
        finally:
            await service.aclose()

    result = asyncio.run(test())
    if args.json:
        print(
            json.dumps(
                {
                    "id": args.id,
                    "ok": result.ok,
                    "message": result.message,
                    "tools": list(result.tools),
                    "exposed": list(result.exposed),
                    "schema_chars": result.schema_chars,
                    "schema_tokens": result.schema_tokens,
                    "seconds": round(result.seconds, 3),
                },
                ensure_ascii=False,
            )
        )
    elif result.ok:
        found = ngettext(
            "{id} : {n} outil en {s} s", "{id} : {n} outils en {s} s", len(result.tools)
        )
        print("✓ " + found.format(id=args.id, n=len(result.tools), s=f"{result.seconds:.1f}"))
        for tool in result.tools:
            mark = "→" if tool in result.exposed else " "
            print(f"  {mark} {tool}")
        shown = ngettext(
            "{n} outil montré au modèle (→) : ~{tokens} jetons ({chars} caractères) de schémas "
            "par requête.",
            "{n} outils montrés au modèle (→) : ~{tokens} jetons ({chars} caractères) de schémas "
            "par requête.",
            len(result.exposed),
        )
        print(
            shown.format(
                n=len(result.exposed), tokens=result.schema_tokens, chars=result.schema_chars
            )
        )
    else:
        from loki_desktop.core.mcp.secret_values import mask

        print(f"✗ {args.id} : {mask(result.message)}", file=sys.stderr)
    return 0 if result.ok else 1


def _import(args: argparse.Namespace, service: McpService) -> int:
    report = service.import_file(args.file)
    for config in report.added:
        state = _("activé") if config.enabled else _("désactivé")
        print(
            _("{id} ajouté ({state}) — {label}").format(
                id=config.id, state=state, label=config.label
            )
        )
    if report.secrets_stored:
        stored = ngettext(
            "{n} secret rangé dans le trousseau système.",
            "{n} secrets rangés dans le trousseau système.",
            report.secrets_stored,
        )
        print(stored.format(n=report.secrets_stored))
    from loki_desktop.core.mcp.secret_values import mask

    for line in report.skipped:
        print(_("ignoré : {line}").format(line=mask(line)), file=sys.stderr)
    if not report.added:
        print(_("Aucun serveur ajouté."), file=sys.stderr)
        return 1
    return 0


# --- helpers --------------------------------------------------------------------------------


def _view_json(view: ServerView, service: McpService) -> dict[str, Any]:
    config = view.config
    data: dict[str, Any] = {
        "id": view.id,
        "label": view.label,
        "kind": config.kind,
        "enabled": config.enabled,
        "description": view.description,
        "params": dict(config.params),
        "secrets": {name: name in view.secrets_set for name in _secret_names(view)},
        "expose": list(config.expose) if config.expose is not None else None,
        "problem": service.problem(view.id) if config.enabled else None,
        "measured": (
            {"tools": config.measured[0], "tokens": config.measured[1]}
            if config.measured is not None
            else None
        ),
    }
    if config.kind == "stdio":
        data["command"] = list(config.command)
    if config.kind == "http":
        data["url"] = config.url
    if view.params:
        data["declared_params"] = [
            {"name": p.name, "label": p.label, "required": p.required, "secret": p.secret}
            for p in view.params
        ]
    return data


def _secret_names(view: ServerView) -> list[str]:
    declared = [p.name for p in view.params if p.secret]
    return list(dict.fromkeys([*declared, *view.config.secrets]))


def _where(view: ServerView) -> str:
    config = view.config
    if config.kind == "http":
        return config.url
    if config.kind == "stdio":
        return " ".join(config.command)
    return view.description.split(".")[0]


def _split_command(command: str) -> list[str]:
    import shlex

    from loki_desktop.core.mcp.config import McpConfigError
    from loki_desktop.core.mcp.secret_values import mask

    try:
        return shlex.split(command, posix=sys.platform != "win32")
    except ValueError as exc:
        # not the command itself: unreadable, it cannot be told where a secret sits in it
        first = command.split()[0] if command.split() else ""
        raise McpConfigError(
            _("Commande illisible ({error}) : « {start} … ».").format(error=exc, start=mask(first))
        ) from None


def _pairs(items: list[str], separator: str) -> dict[str, str]:
    from loki_desktop.core.mcp.config import McpConfigError

    pairs: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition(separator)
        if not sep or not name.strip():
            # the value may be a secret typed without its separator: only its first word
            first = item.split()[0] if item.split() else ""
            raise McpConfigError(
                _("Attendu NOM{separator}valeur : « {start} … ».").format(
                    separator=separator, start=first
                )
            )
        pairs[name.strip()] = value.strip() if separator == ":" else value
    return pairs
