"""`loki-desktop models`: the models the Ollama server has, and what each can do
(`models pull` and `models rm`: cli/models_manage.py)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TYPE_CHECKING

from loki_desktop.cli.models_manage import register_actions
from loki_desktop.cli.servers import add_server_arguments, chosen_server
from loki_desktop.core.i18n import _
from loki_desktop.core.model_servers import ModelServer
from loki_desktop.core.ports import BackendError
from loki_desktop.core.services import Services

if TYPE_CHECKING:
    from loki_desktop.core.llm.probe import ProbeResult


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "models", help=_("liste les modèles du serveur Ollama et ce que chacun sait faire")
    )
    add_server_arguments(parser)
    parser.add_argument("--json", action="store_true", help=_("un objet JSON par modèle et ligne"))
    parser.add_argument(
        "--probe",
        action="store_true",
        help=_(
            "vérifie, par une courte requête par modèle, s'il suit une consigne système "
            "(utile pour un serveur compatible OpenAI, dont le gabarit ne se voit pas)"
        ),
    )
    parser.add_argument("--model", help=_("seulement ce modèle"))
    parser.set_defaults(run=run)
    register_actions(parser)  # models pull | rm


def run(args: argparse.Namespace, services: Services) -> int:
    server = chosen_server(args, services.settings.load())
    return asyncio.run(_list(server, services, args))


async def _list(server: ModelServer, services: Services, args: argparse.Namespace) -> int:
    # imported here: every start (the window's too) imports this module to build the parser
    from loki_desktop.core.llm.backends import make_backend
    from loki_desktop.core.llm.probe import probe_system
    from loki_desktop.core.llm.profiles import (
        ModelProfiles,
        capability_marks,
        describe,
        profile_json,
    )

    as_json = args.json
    backend = make_backend(server, services.secrets)
    host = backend.host
    probes: dict[str, ProbeResult] = {}
    try:
        models = await backend.list_models()
        if args.model:
            models = [m for m in models if m.name == args.model]
        profiles = await describe(backend, ModelProfiles(), [m.name for m in models])
        if args.probe:
            probes = {m.name: await probe_system(backend, m.name) for m in models}
    except BackendError as exc:
        print(exc, file=sys.stderr)
        return 1
    finally:
        await backend.close()
    if not models:
        if server.kind == "ollama":
            empty = _("Aucun modèle sur {host} : « ollama pull qwen2.5-coder:7b » en installe un.")
        else:
            empty = _("Aucun modèle sur {host}.")
        print(empty.format(host=host), file=sys.stderr)
        return 0
    for model, profile in zip(models, profiles, strict=True):
        probe = probes.get(model.name)
        if as_json:
            line = {**profile_json(profile), "size": model.size}
            if probe is not None:
                line["probe"] = {"verdict": probe.verdict, "answer": probe.answer}
            print(json.dumps(line, ensure_ascii=False))
            continue
        size = model.parameter_size or profile.parameter_size
        columns = [model.name, *([size] if size else []), ", ".join(capability_marks(profile))]
        print("  ".join(columns))
        if probe is not None:
            print("  " + probe.sentence())
    return 0
