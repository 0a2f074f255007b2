"""`--api` and `--host`: which model server a command talks to (ask, models)."""

from __future__ import annotations

import argparse

from loki_desktop.core.i18n import _
from loki_desktop.core.model_servers import ModelServer, cli_server, current_server
from loki_desktop.core.settings import Settings


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--api",
        choices=("ollama", "openai"),
        help=_(
            "protocole du serveur : ollama, ou openai (vLLM, llama.cpp, LM Studio, SGLang…) ; "
            "défaut : le serveur du modèle choisi dans les réglages"
        ),
    )
    parser.add_argument(
        "--host",
        help=_(
            "adresse du serveur (avec --api openai : l'URL de l'API, par exemple "
            "http://machine:8000/v1 ; défaut : $OPENAI_BASE_URL)"
        ),
    )


def chosen_server(args: argparse.Namespace, settings: Settings) -> ModelServer:
    """The server of the command; the settings' model is kept only for its own server."""
    server = cli_server(args.api, args.host, settings)
    saved = current_server(settings)
    # another kind of server, or another OpenAI-compatible one: the saved model is not
    # there; its first model unless --model says (an Ollama --host keeps it, as it always did)
    if server.kind != saved.kind or (server.kind == "openai" and server.url != saved.url):
        settings.model = ""
    return server
