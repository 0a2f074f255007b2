"""`loki-desktop models`: the models the Ollama server has (`pull`, `rm`: models_manage)."""

from __future__ import annotations

import argparse
import asyncio
import sys

from loki_desktop.cli.models_manage import register_actions
from loki_desktop.core.ports import BackendError
from loki_desktop.core.services import Services
from loki_desktop.core.settings import resolve_host


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("models", help="liste les modèles du serveur Ollama")
    parser.add_argument("--host", help="adresse du serveur Ollama")
    parser.set_defaults(run=run)
    register_actions(parser)  # models pull | rm


def run(args: argparse.Namespace, services: Services) -> int:
    host = resolve_host(args.host, services.settings.load())
    return asyncio.run(_list(host))


async def _list(host: str) -> int:
    # imported here: every start (the window's too) imports this module to build the parser
    from loki_desktop.core.llm.ollama import OllamaBackend

    backend = OllamaBackend(host)
    try:
        models = await backend.list_models()
    except BackendError as exc:
        print(exc, file=sys.stderr)
        return 1
    finally:
        await backend.close()
    if not models:
        print(
            f"Aucun modèle sur {host} : « ollama pull qwen2.5-coder:7b » en installe un.",
            file=sys.stderr,
        )
        return 0
    for model in models:
        details = f"  {model.parameter_size}" if model.parameter_size else ""
        print(f"{model.name}{details}")
    return 0
