"""The fetch MCP server as Loki runs it: `python -m loki_desktop.cli.fetch_server`, or the
hidden `loki-desktop mcp-fetch-server` inside a bundle. Arguments go to mcp-server-fetch
unchanged (--ignore-robots-txt, --allow-private-ips, ...).

mcp-server-fetch asks readabilipy for its Node path (Mozilla's Readability.js), and
readabilipy, finding `node` but no `node_modules` beside its script, runs `npm install` inside
site-packages at the first page: seconds of network access that write into the install, or
fail offline. Loki keeps readabilipy on its pure-Python path instead (`use_readability=False`,
its public parameter), which needs nothing but the wheel. tests/core/mcp/test_fetch.py proves
that no npm or node process runs.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Sequence
from typing import Any

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
    serve(args.server_args)
    return 0


def serve(server_args: Sequence[str]) -> None:
    import readabilipy.simple_json
    from mcp_server_fetch import main

    # mcp-server-fetch calls readabilipy.simple_json.simple_json_from_html_string(html,
    # use_readability=True) through the module: the pure-Python extractor for every call
    extract = readabilipy.simple_json.simple_json_from_html_string

    @functools.wraps(extract)
    def pure_python(html: str, *args: Any, **kwargs: Any) -> Any:
        kwargs["use_readability"] = False
        return extract(html, *args, **kwargs)

    readabilipy.simple_json.simple_json_from_html_string = pure_python
    # mcp-server-fetch parses sys.argv itself; stdout stays the JSON-RPC channel.
    sys.argv = [COMMAND, *server_args]
    main()


if __name__ == "__main__":
    serve(sys.argv[1:])
