"""Hidden `loki-desktop mcp-fetch-server`: runs the bundled fetch MCP server on stdio.

Inside a PyInstaller bundle sys.executable is Loki itself, not a Python that could run
`-m mcp_server_fetch`; the fetch catalogue entry starts this sub-command instead. Its
arguments go to mcp-server-fetch unchanged (--ignore-robots-txt, --allow-private-ips, ...).
"""

from __future__ import annotations

import argparse
import sys

from loki_desktop.core.services import Services

COMMAND = "mcp-fetch-server"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # No help=: argparse then leaves it out of `loki-desktop --help`.
    parser = subparsers.add_parser(COMMAND, add_help=False, prefix_chars="\0")
    # prefix_chars="\0": nothing here looks like an option, so every argument (even one
    # starting with "--") lands in server_args for mcp-server-fetch's own parser.
    parser.add_argument("server_args", nargs="*")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, services: Services) -> int:
    from mcp_server_fetch import main

    # mcp-server-fetch parses sys.argv itself; stdout stays the JSON-RPC channel.
    sys.argv = [COMMAND, *args.server_args]
    main()
    return 0
