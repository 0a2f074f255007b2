"""`loki-desktop mcp`: list, turn on and off, set up, add, import and test MCP servers."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from loki_desktop.cli import mcp_login
from loki_desktop.cli.secret_input import ask_value
from loki_desktop.core.i18n import N_, _, ngettext
from loki_desktop.core.services import Services

if TYPE_CHECKING:
    from loki_desktop.core.mcp.service import McpService, ServerView


_TIMEOUT_HELP = N_(
    "limite d'un appel d'outil sans signe de vie, en secondes (défaut 30 ; « default » : "
    "le défaut) ; chaque progrès annoncé par le serveur la renouvelle"
)
_MAX_TIMEOUT_HELP = N_(
    "durée maximale d'un appel qui annonce ses progrès, en secondes (défaut 600)"
)
_EXPOSE_HELP = N_(
    "les seuls outils que le modèle voit, séparés par des virgules (« * » : tous) ; "
    "voir leur coût avec « mcp tools ID »"
)


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

    _register_set(commands)
    _register_add(commands)
    _register_install(commands)
    _register_reading(commands)

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


def _register_set(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    setter = commands.add_parser(
        "set",
        help=_(
            "règle des paramètres (NOM=valeur ; NOM seul demande la valeur sans l'afficher ; "
            "NOM= l'efface)"
        ),
    )
    setter.add_argument("id", help=_("identifiant du serveur"))
    setter.add_argument("assignments", nargs="*", metavar=_("NOM=VALEUR"))
    setter.add_argument("--expose", metavar=_("OUTIL,OUTIL"), help=_(_EXPOSE_HELP))
    setter.add_argument("--timeout", metavar="S", help=_(_TIMEOUT_HELP))
    setter.add_argument("--max-timeout", metavar="S", help=_(_MAX_TIMEOUT_HELP))


def _register_add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    adder = commands.add_parser(
        "add",
        help=_("ajoute un serveur personnel"),
        epilog=_(
            "La commande stdio peut aussi venir en dernier, après -- : "
            "loki-desktop mcp add NOM [options] -- npx -y mon-serveur"
        ),
    )
    adder.add_argument("name", help=_("identifiant (a-z, 0-9, tiret)"))
    adder.set_defaults(command_words=[])  # `mcp add NAME [options] -- CMD ARGS…`: see below
    target = adder.add_mutually_exclusive_group()
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
    adder.add_argument("--expose", metavar=_("OUTIL,OUTIL"), help=_(_EXPOSE_HELP))
    adder.add_argument("--timeout", metavar="S", help=_(_TIMEOUT_HELP))
    adder.add_argument("--max-timeout", metavar="S", help=_(_MAX_TIMEOUT_HELP))
    adder.add_argument("--enable", action="store_true", help=_("l'active tout de suite"))


def _register_install(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    installer = commands.add_parser(
        "install",
        help=_("installe un serveur partagé en paquet .mcpb (MCP Bundle)"),
        description=_(
            "Montre ce que contient le paquet (nom, auteur, outils, ce qu'il demande), le "
            "décompresse dans le dossier de données et ajoute le serveur. Les valeurs "
            "secrètes vont au trousseau système. « mcp remove ID » le désinstalle."
        ),
    )
    installer.add_argument("file", type=Path, help=_("le paquet .mcpb"))
    installer.add_argument(
        "--set",
        dest="values",
        action="append",
        default=[],
        metavar=_("CLÉ=VALEUR"),
        help=_("une valeur que le paquet demande (répétée pour une liste)"),
    )
    installer.add_argument(
        "--name", help=_("identifiant du serveur (par défaut, d'après le paquet)")
    )
    installer.add_argument("--enable", action="store_true", help=_("l'active tout de suite"))


def _register_reading(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """remove, and the commands that connect once to read: tools, prompts, resources, test."""
    remover = commands.add_parser("remove", help=_("supprime un serveur personnel"))
    remover.add_argument("id", help=_("identifiant du serveur"))

    tools = commands.add_parser(
        "tools", help=_("se connecte une fois : chaque outil, son coût en jetons, s'il est exposé")
    )
    tools.add_argument("id", help=_("identifiant du serveur"))
    tools.add_argument("--json", action="store_true", help=_("le résultat en JSON"))

    for name, text in (
        ("prompts", _("les prompts des serveurs activés (ou d'un seul), avec leurs arguments")),
        (
            "resources",
            _("les ressources des serveurs activés (ou d'un seul), et leurs modèles d'adresse"),
        ),
    ):
        offers = commands.add_parser(name, help=text)
        offers.add_argument("id", nargs="?", help=_("identifiant du serveur"))
        offers.add_argument("--json", action="store_true", help=_("le résultat en JSON"))

    tester = commands.add_parser("test", help=_("se connecte une fois et liste les outils"))
    tester.add_argument("id", help=_("identifiant du serveur"))
    tester.add_argument("--json", action="store_true", help=_("le résultat en JSON"))


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
        "install": _install,
        "test": _test,
        "tools": _tools,
        "prompts": _prompts,
        "resources": _resources,
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
    from loki_desktop.core.mcp.config import McpConfigError

    limits = (args.timeout, args.max_timeout)
    if not args.assignments and args.expose is None and limits == (None, None):
        raise McpConfigError(_("Rien à régler : donnez NOM=VALEUR, --expose ou --timeout."))
    if args.expose is not None:
        _set_expose(service, args.id, args.expose)
    if limits != (None, None):
        _set_limits(service, args.id, *limits)
    values: dict[str, str | None] = {}
    for assignment in args.assignments:
        name, sep, value = assignment.partition("=")
        values[name.strip()] = value if sep else ask_value(name.strip())
    if values:
        service.set_params(args.id, values)
    for name, value in values.items():
        if not value:
            print(_("{id} : {name} effacé.").format(id=args.id, name=name))
        elif service.keeps_secret(args.id, name, value):
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

    given = [args.server_command is not None, args.url is not None, bool(args.command_words)]
    if given.count(True) != 1:
        raise McpConfigError(
            _(
                "Indiquez le serveur d'une seule façon : --command « … », --url ADRESSE, "
                "ou -- COMMANDE."
            )
        )
    if args.url is None:
        if args.header:
            raise McpConfigError(_("--header ne s'emploie qu'avec --url."))
        words = args.command_words or _split_command(args.server_command)
        config = service.add_stdio(
            args.name,
            words,
            env=_pairs(args.env, "="),
            label=args.label,
            enabled=args.enable,
        )
    else:
        if args.env:
            raise McpConfigError(_("--env ne s'emploie qu'avec une commande stdio."))
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
    if args.expose is not None:
        _set_expose(service, config.id, args.expose)
    if (args.timeout, args.max_timeout) != (None, None):
        _set_limits(service, config.id, args.timeout, args.max_timeout)
    return 0


def _set_expose(service: McpService, server_id: str, text: str) -> None:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names or names == ["*"]:
        service.set_expose(server_id, None)
        print(_("{id} : le modèle voit tous ses outils.").format(id=server_id))
        return
    service.set_expose(server_id, names)
    print(_("{id} : le modèle ne voit que {names}.").format(id=server_id, names=", ".join(names)))


def _set_limits(
    service: McpService, server_id: str, timeout: str | None, max_timeout: str | None
) -> None:
    """--timeout / --max-timeout: a number of seconds, or "default"; one not given stays."""
    from loki_desktop.core.mcp.manager import CALL_MAX_S, CALL_TIMEOUT_S

    config = service.server(server_id).config
    timeout_s = _seconds(timeout, "--timeout", config.call_timeout_s)
    max_s = _seconds(max_timeout, "--max-timeout", config.call_max_s)
    service.set_call_limits(server_id, timeout_s, max_s)
    print(
        _("{id} : appel d'outil limité à {timeout} s sans signe de vie, {max} s en tout.").format(
            id=server_id,
            timeout=f"{timeout_s or CALL_TIMEOUT_S:g}",
            max=f"{max(max_s or CALL_MAX_S, timeout_s or CALL_TIMEOUT_S):g}",
        )
    )


def _seconds(text: str | None, flag: str, current: float | None) -> float | None:
    from loki_desktop.core.mcp.config import McpConfigError, parse_seconds

    if text is None:
        return current
    if text == "default":
        return None
    try:
        value = float(text)
    except ValueError:
        raise McpConfigError(
            _("{flag} attend un nombre de secondes, ou « default ».").format(flag=flag)
        ) from None
    return parse_seconds(value, flag)


def _test_once(service: McpService, server_id: str) -> Any:
    """Connect once apart from the live sessions (the Test button's path), then close."""

    async def test() -> Any:
        try:
            return await service.test(server_id)
        finally:
            await service.aclose()

    return asyncio.run(test())


def _tools(args: argparse.Namespace, service: McpService) -> int:
    result = _test_once(service, args.id)
    if not result.ok:
        print(f"✗ {args.id} : {result.message}", file=sys.stderr)
        return 1
    rows = list(zip(result.tools, result.tool_tokens, strict=True))
    exposed = set(result.exposed)
    if args.json:
        tools = [{"name": n, "tokens": t, "exposed": n in exposed} for n, t in rows]
        print(json.dumps({"id": args.id, "tools": tools, "tokens": result.schema_tokens}))
        return 0
    width = max((len(name) for name, _tokens in rows), default=0)
    for name, tokens in rows:
        mark = "✓" if name in exposed else "·"
        print(f"{mark} {name:<{width}}  ~{tokens}")
    print(
        ngettext(
            "{exposed} outil exposé sur {total} : ~{tokens} jetons par requête.",
            "{exposed} outils exposés sur {total} : ~{tokens} jetons par requête.",
            len(exposed),
        ).format(exposed=len(exposed), total=len(rows), tokens=result.schema_tokens)
    )
    wanted = service.server(args.id).config.expose or ()
    if missing := [name for name in wanted if name not in result.tools]:
        print(
            _("⚠ ce serveur n'offre pas : {names}").format(names=", ".join(missing)),
            file=sys.stderr,
        )
    return 0


def _install(args: argparse.Namespace, service: McpService) -> int:
    from loki_desktop.core.mcp.bundle import describe, read_bundle

    bundle = read_bundle(args.file)
    for line in describe(bundle):
        print(line)
    values = _bundle_values(args.values)
    for option in bundle.options:
        if option.required and option.key not in values and option.default is None:
            if not sys.stdin.isatty():
                continue  # said by the install: the value is missing
            prompt = f"{option.title} [{option.key}]"
            values[option.key] = ask_value(prompt) if option.sensitive else input(f"{prompt} : ")
    config = service.install_bundle(args.file, values, name=args.name, enabled=args.enable)
    state = _("activé") if config.enabled else _("désactivé")
    print(_("{id} installé ({state}).").format(id=config.id, state=state))
    for name in config.secrets:
        print(_("{id} : {name} rangé dans le trousseau système.").format(id=config.id, name=name))
    return 0


def _bundle_values(pairs: list[str]) -> dict[str, Any]:
    """`--set KEY=VALUE` words; a key given twice is a list (an option with `multiple`)."""
    from loki_desktop.core.mcp.config import McpConfigError

    values: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise McpConfigError(_("Attendu CLÉ=VALEUR : « {key} … ».").format(key=key[:20]))
        key = key.strip()
        if key in values:
            before = values[key]
            values[key] = [*before, value] if isinstance(before, list) else [before, value]
        else:
            values[key] = value
    return values


def _connected(args: argparse.Namespace, service: McpService, read: Callable[[Any], Any]) -> Any:
    """Connect the enabled servers (or the one named: it must be on), read what they offer."""
    from loki_desktop.core.mcp.config import McpConfigError

    if args.id is not None and not service.server(args.id).config.enabled:
        raise McpConfigError(
            _("{id} n'est pas activé (loki-desktop mcp enable {id}).").format(id=args.id)
        )

    async def offers() -> Any:
        manager = service.manager
        manager.connect_wait = manager.handshake_timeout  # a listing waits for every server
        try:
            for notice in await manager.prepare():
                print(notice, file=sys.stderr)
            return read(service.manager)
        finally:
            await service.aclose()

    return asyncio.run(offers())


def _prompts(args: argparse.Namespace, service: McpService) -> int:
    prompts = [
        p
        for p in _connected(args, service, lambda m: m.prompts())
        if args.id in (None, p.server_id)
    ]
    if args.json:
        print(json.dumps([_prompt_json(p) for p in prompts], ensure_ascii=False))
        return 0
    for prompt in prompts:
        names = " ".join(f"{a.name}=…" if a.required else f"[{a.name}=…]" for a in prompt.arguments)
        print(f"{prompt.server_id}/{prompt.name}  {names}".rstrip())
        if prompt.title or prompt.description:
            print(f"    {prompt.title or prompt.description}")
    if not prompts:
        print(_("Aucun prompt : les serveurs activés n'en proposent pas."), file=sys.stderr)
    return 0


def _prompt_json(prompt: Any) -> dict[str, Any]:
    return {
        "server": prompt.server_id,
        "name": prompt.name,
        "title": prompt.title,
        "description": prompt.description,
        "arguments": [
            {"name": a.name, "required": a.required, "description": a.description}
            for a in prompt.arguments
        ],
    }


def _resources(args: argparse.Namespace, service: McpService) -> int:
    resources, templates = _connected(
        args, service, lambda m: (m.resources(), m.resource_templates())
    )
    resources = [r for r in resources if args.id in (None, r.server_id)]
    templates = [t for t in templates if args.id in (None, t.server_id)]
    if args.json:
        listed = {
            "resources": [_resource_json(r, uri=r.uri) for r in resources],
            "templates": [
                _resource_json(t, uri_template=t.uri_template, parameters=list(t.parameters))
                for t in templates
            ],
        }
        print(json.dumps(listed, ensure_ascii=False))
        return 0
    for resource in resources:
        mime = f"  ({resource.mime_type})" if resource.mime_type else ""
        print(f"{resource.uri}  {resource.label}{mime}")
    for template in templates:
        print(
            _("{template}  modèle, paramètres : {names}").format(
                template=template.uri_template, names=", ".join(template.parameters) or "—"
            )
        )
    if not resources and not templates:
        print(_("Aucune ressource : les serveurs activés n'en proposent pas."), file=sys.stderr)
    return 0


def _resource_json(item: Any, **where: Any) -> dict[str, Any]:
    return {
        "server": item.server_id,
        **where,
        "name": item.name,
        "title": item.title,
        "description": item.description,
        "mime_type": item.mime_type,
    }


def _remove(args: argparse.Namespace, service: McpService) -> int:
    service.remove(args.id)
    print(_("{id} supprimé.").format(id=args.id))
    return 0


def _test(args: argparse.Namespace, service: McpService) -> int:
    result = _test_once(service, args.id)
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
